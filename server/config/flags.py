"""The settings as command-line flags and SOLRACE_* environment variables.

Each setting can be given as a flag (``--max-frame 8192``) or a variable
(``SOLRACE_MAX_FRAME=8192``); flags win over the environment, the environment
over the defaults.

Nothing here knows the settings' names: any dataclass whose fields have defaults (and a
``doc`` in their metadata) gets its flags and variables the same way.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from dataclasses import fields
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

S = TypeVar("S", bound="DataclassInstance")


def add_arguments(settings: type[DataclassInstance], parser: argparse.ArgumentParser) -> None:
    """One flag per setting; defaults stay None so we can tell 'not given'."""
    for f in fields(settings):
        flag = "--" + f.name.replace("_", "-")
        kind = type(f.default)
        parser.add_argument(
            flag,
            dest=f.name,
            type=kind,
            default=None,
            help=f"{f.metadata.get('doc', '')} (default {f.default!r}; env SOLRACE_{f.name.upper()})",
        )


def from_env(
    settings: type[S], environ: dict[str, str] | None = None, args: argparse.Namespace | None = None
) -> S:
    environ = dict(os.environ if environ is None else environ)
    values: dict[str, Any] = {}
    for f in fields(settings):
        kind: Callable[[str], Any] = type(f.default)
        raw = environ.get("SOLRACE_" + f.name.upper())
        if raw is not None:
            try:
                values[f.name] = kind(raw)
            except ValueError:
                what = "an integer" if kind is int else "a number" if kind is float else kind.__name__
                raise ValueError(f"SOLRACE_{f.name.upper()}={raw!r} is not {what}") from None
        if args is not None and getattr(args, f.name, None) is not None:
            values[f.name] = getattr(args, f.name)
    return settings(**values)
