"""`solrace play`: race in the terminal (textual).

    solrace play                                   # menu: pick a game, quick-match / create / join
    solrace play --game racing-aces --quick        # quick-match straight away
    solrace play --game fours-up --create --seats 3 --time-limit 300
    solrace play --join r8a1c…                     # or a link: http://HOST:PORT/#race=ID
    solrace play --offline --game rouge-et-noir    # practise against a local bot, no server

The session token is kept in ~/.config/solrace/token (``--token-file``), so a
restarted client resumes the same identity and seats.
"""

from __future__ import annotations

import argparse

DEFAULT_URL = "ws://127.0.0.1:8765/ws"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--url", default=DEFAULT_URL, help=f"server websocket URL (default {DEFAULT_URL})")
    parser.add_argument("--name", help="display name (1-24 printable characters)")
    parser.add_argument(
        "--token-file", help="where the session token is kept (default ~/.config/solrace/token)"
    )
    parser.add_argument("--game", help="racing-aces, double-aces-and-kings, rouge-et-noir, fours-up")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="quick-match a public race of --game")
    mode.add_argument("--create", action="store_true", help="create a race of --game and wait in its lobby")
    mode.add_argument("--join", metavar="ID_OR_LINK", help="join a race by id or link")
    parser.add_argument("--seats", type=int, default=2, help="seats (create: 1-8, quick: 2-8; default 2)")
    parser.add_argument(
        "--time-limit", type=int, default=600, metavar="S", help="race clock in seconds (create)"
    )
    parser.add_argument(
        "--private", action="store_true", help="create a private race (not listed, no spectators)"
    )
    parser.add_argument(
        "--offline", action="store_true", help="no server: race the rules engine's local bots (for practice)"
    )
    parser.add_argument("--rivals", type=int, default=1, help="offline: number of bot rivals (default 1)")
    parser.add_argument("--bot-speed", type=float, default=1.0, help="offline: seconds between bot moves")
    parser.add_argument("--seed", help="offline: deal this seed")


def intent_from_args(args: argparse.Namespace):
    from client.tui.links import parse_link
    from client.tui.play_app import Intent

    if args.join:
        url, race = parse_link(args.join)
        if url and args.url == DEFAULT_URL:
            args.url = url
        return Intent("join", race=race)
    if args.quick or args.create:
        if not args.game:
            raise SystemExit("solrace play: --quick and --create need --game")
        if args.quick:
            return Intent("quick", args.game, max(2, args.seats))
        return Intent("create", args.game, args.seats, args.time_limit, args.private)
    return None


def run(args: argparse.Namespace) -> int:
    from client.tui.play_app import PlayApp
    from protocol.rules.facts import UnknownGame, game_def

    if args.game is not None:
        try:
            game_def(args.game)
        except UnknownGame as e:
            raise SystemExit(f"solrace play: {e}") from None
    intent = intent_from_args(args)
    if args.offline:
        from client.tui.session import LocalSession

        if intent is not None and intent.mode == "join":
            raise SystemExit("solrace play: --offline cannot join a server race")
        if intent is not None and intent.mode == "quick":
            intent.seats = args.rivals + 1

        async def connect():
            return LocalSession(
                name=args.name or "you",
                rivals=args.rivals,
                rival_interval=args.bot_speed,
                seed=args.seed,
                time_limit_s=args.time_limit,
            )
    else:
        from client.tui.net import connector

        connect = connector(args.url, args.name, args.token_file)
    app = PlayApp(connect, intent, default_game=args.game, server_url=None if args.offline else args.url)
    result = app.run()
    return int(result or 0)
