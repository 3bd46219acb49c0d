"""argparse types and checks that several `solrace` commands share: kept apart from the
commands themselves, which import the apps they run (a command importing another command's
check imported that command's app too, and tied the modules in a circle)."""

from __future__ import annotations

import argparse


def positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def positive_float(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be more than 0, not {text}")
    return value


def non_negative_float(text: str) -> float:
    value = float(text)
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {text}")
    return value


def name_ok(name: str) -> bool:
    """Whether the server takes `name` as a display name (protocol/messages/fields.py)."""
    import re

    from protocol.messages import MAX_NAME
    from protocol.messages.fields import NAME_PATTERN

    return len(name) <= MAX_NAME and re.fullmatch(NAME_PATTERN, name) is not None


def name_rule() -> str:
    from protocol.messages import MAX_NAME

    return f"1 to {MAX_NAME} printable characters, no space at either end"


def check_connection_arguments(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """A --name the server would refuse is a usage error (it showed as a failed connection, with
    the decoder's words, once the app was up): `play`, `watch` and `arena` alike."""
    if args.name is not None and not name_ok(args.name):
        parser.error(f"argument --name: {name_rule()}")


def check_link(parser: argparse.ArgumentParser, flag: str, value: str | None) -> None:
    """A race link with no race in it (`--join http://HOST/`) is a usage error too."""
    from client.tui.links import parse_link

    if value is not None:
        try:
            parse_link(value)
        except ValueError as e:
            parser.error(f"argument {flag}: {e}")
