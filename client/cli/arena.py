"""`solrace arena`: list arenas, open one: join, withdraw, berserk, follow the live standings.

solrace arena                          # the arena list; Enter on an arena opens it
solrace arena --arena hourly-fours-up-29412480   # open it at once
solrace arena --url ws://a:8765/ws --url ws://b:8765/ws   # failover between processes

The list shows names, not ids (an 80-column terminal has no room for both); an open
arena's header ends with its id, for `--arena`. A paired race is played with
`solrace play --race ID` (the status line names it).
"""

from __future__ import annotations

import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from client.cli.play import add_connection_arguments

    add_connection_arguments(parser)
    parser.add_argument("--arena", metavar="ID", help="open this arena at once")


def run(args: argparse.Namespace) -> int:
    from client.cli.play import server_urls
    from client.tui.arena_app import ArenaApp
    from client.tui.net import connector

    app = ArenaApp(connector(server_urls(args, None), args.name, args.token_file), arena=args.arena)
    return int(app.run() or 0)
