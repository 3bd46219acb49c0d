"""`solrace watch`: list live public races, spectate one (progress and delayed boards).

solrace watch                     # the live race list; Enter on a race spectates it
solrace watch --game fours-up     # only that game
solrace watch --race r8a1c…       # spectate straight away (id or link)
solrace watch --url ws://a:8765/ws --url ws://b:8765/ws   # failover between processes
"""

from __future__ import annotations

import argparse
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from client.cli.checks import check_connection_arguments, check_link
from client.cli.play import add_connection_arguments, server_urls
from protocol import rules

if TYPE_CHECKING:
    from client.tui.session import Session


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_connection_arguments(parser)
    parser.add_argument("--game", choices=sorted(rules.GAMES), help="list only races of this game")
    parser.add_argument("--race", metavar="ID_OR_LINK", help="spectate this race at once")
    parser.add_argument("--offline", action="store_true", help="no server: watch local bot races (demo)")


def check_arguments(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Usage errors before the app opens (exit 2), as `solrace play` finds them: a --name the
    server refuses showed in the app as "cannot connect: `name`: Expected `str` of length <= 24"."""
    check_connection_arguments(parser, args)
    check_link(parser, "--race", args.race)


def run(args: argparse.Namespace) -> int:
    from client.tui.links import parse_invite, parse_link
    from client.tui.watch_app import WatchApp

    race = None
    link_url = None
    if args.race:
        try:
            link_url, race = parse_link(args.race)
        except ValueError as e:
            raise SystemExit(f"solrace watch: --race: {e}") from None
    connect: Callable[[], Awaitable[Session]]
    server_url = None  # offline: no server to name in the commands shown at a race's end
    if args.offline:
        from client.tui.offline import LocalSession

        async def connect_offline() -> Session:
            return LocalSession(name=args.name or "watcher", watch_demo=True, rival_interval=0.3)

        connect = connect_offline
    else:
        from client.tui.net import connector

        urls = server_urls(args, link_url)
        connect = connector(urls, args.name, args.token_file)
        server_url = urls[0]
    app = WatchApp(
        connect,
        game=args.game,
        race=race,
        invite=parse_invite(args.race or ""),
        server_url=server_url,
    )
    from client.tui.run import run_app

    return int(run_app(app) or 0)
