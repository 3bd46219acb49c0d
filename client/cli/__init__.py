"""The `solrace` command: one entry point, one module per subcommand.

Each subcommand module defines `add_arguments(parser)` and `run(args) -> int`.
Modules are imported lazily so that `solrace deal` does not pay for the server
and `solrace serve` does not pay for the terminal UI.
"""

from __future__ import annotations

import argparse
import importlib
import sys

SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "deal": ("client.cli.deal", "deal a game from a seed and show it with its legal moves"),
    "serve": ("server.cli", "run a race server"),
    "play": ("client.cli.play", "play a race in the terminal"),
    "watch": ("client.cli.watch", "list live races and spectate one"),
    "bot": ("client.cli.bot", "run bots against a server, or measure strategies offline"),
    "bench": ("client.cli.bench", "load-test a server against an echo baseline"),
    "verify": ("client.cli.verify", "re-deal and re-play a finished race or daily"),
    "analyze": ("client.cli.analyze", "where each player of a finished race lost the win"),
}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(prog="solrace", description="solitaire race server and tools")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (_module, help_text) in SUBCOMMANDS.items():
        sub.add_parser(name, help=help_text, add_help=False)
    if not argv or argv[0] in ("-h", "--help") or argv[0] not in SUBCOMMANDS:
        parser.print_help() if not argv or argv[0] in ("-h", "--help") else parser.error(
            f"unknown command {argv[0]!r}"
        )
        return 0 if not argv or argv[0] in ("-h", "--help") else 2
    name = argv[0]
    module = importlib.import_module(SUBCOMMANDS[name][0])
    sub_parser = argparse.ArgumentParser(prog=f"solrace {name}", description=SUBCOMMANDS[name][1])
    module.add_arguments(sub_parser)
    args = sub_parser.parse_args(argv[1:])
    return int(module.run(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
