"""The software's version, as installed (pyproject.toml's `version`): `solrace --version`,
the server's startup line and its `solrace_build_info` metric say it."""

from __future__ import annotations

from importlib import metadata


def software_version() -> str:
    try:
        return metadata.version("solrace")
    except metadata.PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown"
