"""`solrace play`: race in the terminal (textual).

    solrace play                                   # menu: pick a game, quick-match / create / join
    solrace play --game racing-aces --quick        # quick-match straight away
    solrace play --game fours-up --create --seats 3 --time-limit 300
    solrace play --join r8a1c…                     # or a link: http://HOST:PORT/#race=ID
    solrace play --race r8a1c…                     # back to a race you hold a seat in (an arena pairing)
    solrace play --offline --game fours-up --rivals 2   # practise against local bots, no server
    solrace play --url ws://a:8765/ws --url ws://b:8765/ws ...   # failover between processes

The session token is kept in ~/.config/solrace/token (``--token-file``), so a
restarted client resumes the same identity and seats (without a mode it goes
back to the last race it holds a seat in; ``--race`` names one, e.g. the race
``solrace arena`` paired it in). With several ``--url``
the client connects to the first that answers and, if its process goes away,
resumes the session on another one (processes sharing one Redis).

Offline, ``--game`` starts a race of that game at once against ``--rivals``
local bots; without it the menu asks for the game.
"""

from __future__ import annotations

import argparse
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from protocol import rules

if TYPE_CHECKING:
    from client.tui.menu import Intent
    from client.tui.play_app import PlayApp
    from client.tui.session import Session

DEFAULT_URL = "ws://127.0.0.1:8765/ws"


def add_connection_arguments(parser: argparse.ArgumentParser) -> None:
    """--url (repeatable, for failover), --name and --token-file: every interactive command's."""
    parser.add_argument(
        "--url",
        action="append",
        help=f"server websocket URL (default {DEFAULT_URL}); repeat it for several processes of one "
        "server: the client fails over between them",
    )
    parser.add_argument("--name", help="display name (1-24 printable characters)")
    parser.add_argument(
        "--token-file",
        help="where the session token is kept (default ~/.config/solrace/token); to play as your "
        "account, put its token there (in the browser, after logging in: localStorage 'solrace.token')",
    )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_connection_arguments(parser)
    parser.add_argument("--game", choices=sorted(rules.GAMES), help="the game to race")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="quick-match a public race of --game")
    mode.add_argument("--create", action="store_true", help="create a race of --game and wait in its lobby")
    mode.add_argument("--join", metavar="ID_OR_LINK", help="join a race by id or link")
    mode.add_argument(
        "--race",
        metavar="ID_OR_LINK",
        help="go back to a race you hold a seat in (e.g. an arena pairing, which `solrace arena` names)",
    )
    parser.add_argument("--seats", type=int, default=2, help="seats (create: 1-8, quick: 2-8; default 2)")
    parser.add_argument(
        "--time-limit", type=int, default=600, metavar="S", help="race clock in seconds (create)"
    )
    parser.add_argument(
        "--private", action="store_true", help="create a private race (not listed, no spectators)"
    )
    parser.add_argument(
        "--offline",
        action="store_true",
        help="no server: race the rules engine's local bots (for practice); --game starts at once",
    )
    parser.add_argument("--rivals", type=int, default=1, help="offline: number of bot rivals (default 1)")
    parser.add_argument("--bot-speed", type=float, default=1.0, help="offline: seconds between bot moves")
    parser.add_argument("--seed", help="offline: deal this seed")


def server_urls(args: argparse.Namespace, link_url: str | None = None) -> list[str]:
    """The --url values; a link's server when none was given; else the default."""
    if args.url:
        return list(args.url)
    return [link_url or DEFAULT_URL]


def intent_from_args(args: argparse.Namespace) -> Intent | None:
    from client.tui.links import parse_invite, parse_link
    from client.tui.menu import Intent

    for flag, mode, value in (("--join", "join", args.join), ("--race", "resume", args.race)):
        if value:
            try:
                url, race = parse_link(value)
            except ValueError as e:
                raise SystemExit(f"solrace play: {flag}: {e}") from None
            args.url = server_urls(args, url)
            return Intent(mode, race=race, invite=parse_invite(value))
    if args.quick or args.create:
        if not args.game:
            raise SystemExit("solrace play: --quick and --create need --game")
        if args.quick:
            return Intent("quick", args.game, max(2, args.seats))
        return Intent("create", args.game, args.seats, args.time_limit, args.private)
    return None


def build_app(args: argparse.Namespace) -> PlayApp:
    """The app the flags ask for (not yet running)."""
    from client.tui.menu import Intent
    from client.tui.play_app import PlayApp

    if args.offline and (args.join or args.race):
        raise SystemExit("solrace play: --offline cannot play a server race (--join, --race)")
    if args.offline and not 1 <= args.rivals <= 7:
        raise SystemExit("solrace play: --rivals must be 1 to 7")
    intent = intent_from_args(args)
    connect: Callable[[], Awaitable[Session]]
    if args.offline:
        from client.tui.offline import LocalSession

        if intent is None and args.game:
            intent = Intent("quick", args.game, args.rivals + 1)
        elif intent is not None and intent.mode == "quick":
            intent.seats = args.rivals + 1

        async def connect_offline() -> Session:
            return LocalSession(
                name=args.name or "you",
                rivals=args.rivals,
                rival_interval=args.bot_speed,
                seed=args.seed,
                time_limit_s=args.time_limit,
            )

        connect = connect_offline
        return PlayApp(connect, intent, default_game=args.game, default_seats=args.rivals + 1)
    from client.tui.net import connector

    urls = server_urls(args)
    connect = connector(urls, args.name, args.token_file)
    return PlayApp(connect, intent, default_game=args.game, server_url=urls[0])


def run(args: argparse.Namespace) -> int:
    result = build_app(args).run()
    return int(result or 0)
