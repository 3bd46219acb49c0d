"""`solrace play`: race in the terminal (textual).

    solrace play                                   # menu: pick a game, quick-match / create / join
    solrace play --game racing-aces --quick        # quick-match straight away
    solrace play --game racing-aces --quick --rated  # a rated quick-match (an account's: --login)
    solrace play --game fours-up --create --seats 3 --time-limit 300
    solrace play --join r8a1c…                     # or a link: http://HOST:PORT/#race=ID
    solrace play --race r8a1c…                     # back to a race you hold a seat in (an arena pairing)
    solrace play --rematch r8a1c…                  # a finished race you played, again: its rematch
    solrace play --game fours-up --daily           # today's daily challenge (one ranked attempt)
    solrace play --offline --game fours-up --rivals 2   # practise against local bots, no server
    solrace play --url ws://a:8765/ws --url ws://b:8765/ws ...   # failover between processes
    solrace play --login ada                       # log in (asks the password), then play as ada
    solrace play --claim ada                       # make this guest the account ada, then play
    solrace play --logout                          # end the account session; next time: a new guest
    solrace play --logout-all                      # end every session of the account (every device)
    solrace play --password                        # change the password (asked for, never echoed)

The session token is kept in ~/.config/solrace/token (``--token-file``), so a
restarted client resumes the same identity and seats (without a mode it goes
back to the last race it holds a seat in; ``--race`` names one, e.g. the race
``solrace arena`` paired it in). ``--rematch`` asks for the rematch of a finished race
this identity played (the same players and settings, a new deal), or takes the seat in
the one a rival already asked for, and readies in its lobby. ``--login`` and ``--claim`` put an account's
token there (the password is asked for with getpass: never echoed, never an
argument, never kept; from a pipe, each password asked for is one line of
stdin; a name or password that the account rules of docs/protocol.md §9 refuse is
refused before the next prompt), ``--logout`` takes it out, ``--logout-all`` ends every session of the
account (every device) and takes it out too. ``--password`` asks
for the current password and twice for the new one; the server ends the
account's other sessions and keeps this terminal's token, so the file stays as
it is. ``--rated`` (with ``--quick`` or ``--create``, accounts only) plays a
rated race: the race screen marks it and shows your rating change at the end.
The menu shows who you play as, "Race a bot" (a private race against a server bot of the
level chosen, started at once: Quick match gets a bot only after a wait alone), the daily
challenge (play today's deal, see its leaderboard), the ratings (yours, and each game's
rating board) and your races (your latest races, newest first: Enter replays one move by
move, and the commands that re-play and check each one are shown); an account also gets a
"rated" box for Quick match and Create. With several ``--url`` the client
connects to the first that answers and, if its process goes away, resumes the
session on another one (processes sharing one Redis).

Offline, ``--game`` starts a race of that game at once against ``--rivals``
local bots; without it the menu asks for the game.
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import sys
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from client.cli import DEFAULT_URL
from client.cli.checks import check_connection_arguments, check_link
from protocol import rules

if TYPE_CHECKING:
    from client.tui.intent import Intent
    from client.tui.play_app import PlayApp
    from client.tui.session import Session

DEFAULT_TIME_LIMIT_S = 600


def add_connection_arguments(parser: argparse.ArgumentParser) -> None:
    """--url (repeatable, for failover), --name and --token-file: every interactive command's."""
    parser.add_argument(
        "--url",
        action="append",
        help=f"server websocket URL (default {DEFAULT_URL}; its web page's http(s) address works too); "
        "repeat it for several processes of one "
        "server: the client fails over between them",
    )
    parser.add_argument("--name", help="display name (1-24 printable characters)")
    parser.add_argument(
        "--token-file",
        help="where the session token is kept (default ~/.config/solrace/token); `solrace play "
        "--login NAME` puts an account's token there",
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
    mode.add_argument(
        "--rematch",
        metavar="ID_OR_LINK",
        help="a finished race you played, again: its rematch (a rival's, if one asked first), ready",
    )
    mode.add_argument(
        "--daily", action="store_true", help="play today's daily challenge of --game (one ranked attempt)"
    )
    account = parser.add_mutually_exclusive_group()
    account.add_argument(
        "--login",
        metavar="NAME",
        help="log in to account NAME (the password is asked for, never echoed), then play as it",
    )
    account.add_argument(
        "--claim",
        metavar="NAME",
        help="make this terminal's guest the account NAME (password asked twice), then play as it",
    )
    account.add_argument(
        "--logout", action="store_true", help="end this terminal's account session and forget its token"
    )
    account.add_argument(
        "--logout-all",
        action="store_true",
        help="end every session of this terminal's account, on every device, and forget its token",
    )
    account.add_argument(
        "--password",
        action="store_true",
        help="change the account's password (asked for, never echoed); other devices must log in again",
    )
    parser.add_argument(
        "--rated",
        action="store_true",
        help="with --quick: a rated race matched by rating; with --create: a rated lobby (2-8 seats, "
        "the server's clock). Accounts only (--login NAME)",
    )
    parser.add_argument("--seats", type=int, default=2, help="seats (create: 1-8, quick: 2-8; default 2)")
    parser.add_argument(
        "--time-limit",
        type=int,
        default=DEFAULT_TIME_LIMIT_S,
        metavar="S",
        help="race clock in seconds (create; a rated race has the server's)",
    )
    parser.add_argument(
        "--private", action="store_true", help="create a private race (not listed, no spectators)"
    )
    parser.add_argument(
        "--offline",
        action="store_true",
        help="no server: race the rules engine's local bots (for practice); --game starts at once",
    )
    parser.add_argument("--rivals", type=int, help="offline: number of bot rivals (default 1)")
    parser.add_argument(
        "--bot-speed", type=float, default=None, help="offline: seconds between bot moves (default 1)"
    )
    parser.add_argument("--seed", help="offline: deal this seed")


#: Flags that only an offline race reads: without --offline, refused as a usage error.
OFFLINE_ONLY = ("--seed", "--rivals", "--bot-speed")


def check_arguments(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Usage errors found after parsing (exit 2, argparse's one `error:` line): --seed,
    --rivals and --bot-speed without --offline were silently ignored (a server deals its own
    seeds and seats, and its bots keep their own pace). A --name the server would refuse is one
    too, and so is every combination or value `usage_problem` refuses (they exited 1, as a
    failure met at run time would)."""
    check_connection_arguments(parser, args)
    for flag in ("--join", "--race", "--rematch"):
        check_link(parser, flag, getattr(args, flag.removeprefix("--")))
    if not args.offline:
        for flag in OFFLINE_ONLY:
            if getattr(args, flag.removeprefix("--").replace("-", "_")) is not None:
                parser.error(
                    f"argument {flag}: needs --offline (a server race is dealt and seated by the server)"
                )
    problem = usage_problem(args)
    if problem is not None:
        parser.error(problem)


def usage_problem(args: argparse.Namespace) -> str | None:
    """The first combination or value of the flags that cannot be played, in one sentence;
    None when there is none. `check_arguments` refuses it at parsing; `build_app`,
    `intent_from_args` and `account_step` too (SystemExit), for a caller that parsed alone."""
    from protocol.messages import MAX_SEATS, MAX_TIME_LIMIT_S, MIN_QUICK_SEATS, MIN_SEATS, MIN_TIME_LIMIT_S

    if args.offline:
        if args.join or args.race or args.rematch or args.daily:
            return "--offline cannot play a server race (--join, --race, --rematch, --daily)"
        if args.rated:
            return "--offline races are not rated: rated races are played on a server"
        if args.login or args.claim or args.logout or args.logout_all or args.password:
            return "--offline has no account (--login, --claim, --logout, --logout-all, --password)"
        if args.rivals is not None and not 1 <= args.rivals <= 7:
            return "--rivals must be 1 to 7"
    if args.rated and not (args.quick or args.create):
        return "--rated goes with --quick or --create (and --game)"
    if args.daily and not args.game:
        return "--daily needs --game"
    if args.quick or args.create:
        if not args.game:
            return "--quick and --create need --game"
        # Said here in the flags' words: the server's refusal came only once the app was up,
        # as "`seats`: Expected `int` <= 8". A quick match of 1 is played as one of 2.
        if not MIN_SEATS <= args.seats <= MAX_SEATS:
            return f"--seats must be {MIN_QUICK_SEATS if args.quick else MIN_SEATS} to {MAX_SEATS}"
        if args.create and not MIN_TIME_LIMIT_S <= args.time_limit <= MAX_TIME_LIMIT_S:
            return f"--time-limit must be {MIN_TIME_LIMIT_S} to {MAX_TIME_LIMIT_S} seconds"
        if args.create and args.rated and args.seats < 2:
            return "a rated race has 2 seats or more (--seats)"
        if args.create and args.rated and args.time_limit != DEFAULT_TIME_LIMIT_S:
            return "a rated race runs on the server's clock: leave out --time-limit"
    return None


def refuse_usage(args: argparse.Namespace) -> None:
    """SystemExit with `usage_problem`'s sentence, if any."""
    problem = usage_problem(args)
    if problem is not None:
        raise SystemExit(f"solrace play: {problem}")


def server_urls(args: argparse.Namespace, link_url: str | None = None) -> list[str]:
    """The --url values; a link's server when none was given; else the default."""
    if args.url:
        return list(args.url)
    return [link_url or DEFAULT_URL]


def intent_from_args(args: argparse.Namespace) -> Intent | None:
    from client.tui.intent import Intent
    from client.tui.links import parse_invite, parse_link

    refuse_usage(args)
    races = (
        ("--join", "join", args.join),
        ("--race", "resume", args.race),
        ("--rematch", "rematch", args.rematch),
    )
    for flag, mode, value in races:
        if value:
            try:
                url, race = parse_link(value)
            except ValueError as e:
                raise SystemExit(f"solrace play: {flag}: {e}") from None
            args.url = server_urls(args, url)
            return Intent(mode, race=race, invite=parse_invite(value))
    if args.daily:
        return Intent("daily", args.game)
    if args.quick:
        return Intent("quick", args.game, max(2, args.seats), rated=args.rated)
    if args.create:
        return Intent("create", args.game, args.seats, args.time_limit, args.private, rated=args.rated)
    return None


def build_app(args: argparse.Namespace) -> PlayApp:
    """The app the flags ask for (not yet running)."""
    from client.tui.intent import Intent
    from client.tui.play_app import PlayApp

    refuse_usage(args)
    if args.offline and args.rivals is None:
        args.rivals = 1
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
                rival_interval=1.0 if args.bot_speed is None else args.bot_speed,
                seed=args.seed,
                time_limit_s=args.time_limit,
            )

        connect = connect_offline
        return PlayApp(connect, intent, default_game=args.game, default_seats=args.rivals + 1)
    from client.tui.net import connector

    urls = server_urls(args)
    connect = connector(urls, args.name, args.token_file)
    return PlayApp(connect, intent, default_game=args.game, server_url=urls[0])


def ask_new_password(ask: Callable[[str], str], changing: bool = False, name: str | None = None) -> str:
    """A new password, typed twice (the new account's, ``name``, or with `changing` the
    account's next one); `SystemExit` when the two differ. One the server would refuse is
    refused before it is asked again (`AccountFailed`); `EOFError` when none was typed."""
    from client.tui import account
    from protocol.accounts import password_problem

    what = "the new password" if changing else "password for the new account"
    password = ask(f"{what} (8 or more characters): ")
    if not password:
        raise EOFError
    problem = password_problem(password, name)
    if problem is not None:
        raise account.AccountFailed(f"cannot {'change the password' if changing else 'claim'}: {problem}")
    if ask("the same password again: ") != password:
        raise SystemExit(
            "solrace play: the two passwords differ: "
            + ("the password is unchanged" if changing else "nothing was claimed")
        )
    return password


def rated_step(args: argparse.Namespace) -> str | None:
    """Why `--rated` cannot be played from this terminal (its token file holds no account
    token: a guest), in one sentence; None when it can (or `--rated` was not asked for)."""
    if not args.rated or args.offline:
        return None
    from client.tui.net import is_account_token, load_token, token_path
    from client.tui.ratings_text import rated_needs_account

    if is_account_token(load_token(token_path(args.token_file))):
        return None
    return rated_needs_account(args.game, "quick" if args.quick else "create")


def read_password(prompt: str) -> str:
    """A password: at a terminal through getpass (not echoed); from a pipe (a script), one line
    of stdin, with no prompt. getpass would print its prompt and a warning that it cannot hide
    the echo when there is no terminal to open, neither of which a script wants."""
    if sys.stdin is None:  # closed (`<&-`): nothing to read a password from
        raise EOFError
    if sys.stdin.isatty():
        return getpass.getpass(prompt)
    line = sys.stdin.readline()
    if not line:
        raise EOFError
    return line.rstrip("\r\n")


def account_step(
    args: argparse.Namespace,
    ask: Callable[[str], str] = read_password,
    say: Callable[[str], None] = print,
) -> int | None:
    """--login, --claim, --logout, --logout-all, --password, before the app: an exit status
    to stop with (after the last three, or when the server refused), or None to go on and play.

    Passwords come from `ask` (getpass at a terminal: not echoed; one line each from a pipe) and
    go into one request only.
    """
    if not (args.login or args.claim or args.logout or args.logout_all or args.password):
        return None
    refuse_usage(args)
    from client.tui import account

    intent_from_args(args)  # a --join or --race link names the server: log in there
    urls = server_urls(args)
    try:
        if args.logout:
            done = asyncio.run(account.logout(urls, args.token_file))
        elif args.logout_all:
            done = asyncio.run(account.logout_all(urls, args.token_file))
        elif args.password:
            account.account_token(args.token_file, "change the password")  # before asking anything
            old = ask("current password: ")
            if not old:
                raise EOFError
            new = ask_new_password(ask, changing=True)
            if not new:
                raise EOFError
            done = asyncio.run(account.change_password(urls, old, new, args.token_file))
        else:
            if args.claim:  # before any password is asked for
                account.check_claim(args.claim, args.token_file)
            else:
                account.check_login(args.login)
            password = (
                ask(f"password of {args.login}: ") if args.login else ask_new_password(ask, name=args.claim)
            )
            if not password:
                raise EOFError
            if args.login:
                done = asyncio.run(account.login(urls, args.login, password, args.token_file))
            else:
                done = asyncio.run(account.claim(urls, args.claim, password, args.token_file))
    except EOFError:  # the input ended at a prompt, or nothing was typed
        print(
            "solrace play: a password was not given (the input ended, or was empty): nothing done",
            file=sys.stderr,
        )
        return 1
    except KeyboardInterrupt:
        print("\nsolrace play: interrupted: the token file is as it was", file=sys.stderr)
        return 130
    except account.AccountFailed as e:
        print(f"solrace play: {e}", file=sys.stderr)
        return 1
    say(done.text)
    return 0 if (args.logout or args.logout_all or args.password) else None


def has_terminal() -> bool:
    """Whether stdin is a terminal to race in (not a pipe, a file, or closed)."""
    return sys.stdin is not None and sys.stdin.isatty()


def run(args: argparse.Namespace) -> int:
    stop = account_step(args)
    if stop is not None:
        return stop
    if (args.login or args.claim) and not has_terminal():
        # A script logged in or claimed (passwords from a pipe): the action's own line said it
        # was done, and that is all a script asked for; no race to open, nothing to warn about.
        return 0
    refused = rated_step(args)
    if refused is not None:
        print(f"solrace play: {refused}", file=sys.stderr)
        return 1
    app = build_app(args)  # its refusals of the flags first: they need no terminal
    if not has_terminal():
        print(
            "solrace play: no terminal to play in (stdin is not one): run solrace play from a terminal",
            file=sys.stderr,
        )
        return 1
    from client.tui.run import run_app

    result = run_app(app)
    return int(result or 0)
