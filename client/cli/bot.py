"""`solrace bot`: bots that race on a server, or strategies measured offline.

Offline (no server): play N deals per strategy through the rules engine and
print the win rate and mean cards home::

    solrace bot --stats fours-up --deals 200 --strategy all

Progress (deals played so far) goes to stderr, the table to stdout. The deal seeds are derived from ``--seed-prefix`` (client/bots/offline.py), so
a run is reproducible; strategies see only their player's view.

Online: N bots connect, take seats in one race and play it::

    solrace bot --url ws://127.0.0.1:8765/ws --count 3 --game racing-aces --strategy search
    solrace bot ... --race RACE_ID     # join an existing race (of whatever game) and ready up
    solrace bot --race 'http://HOST:PORT/#race=ID&invite=SECRET'   # a race's link: its server, its invite
    solrace bot ... --quick            # quick-match (bots may meet people)
    solrace bot ... --arena ARENA_ID   # join an arena, play every race paired into, until it ends
    solrace bot ... --arena ARENA_ID --berserk   # the same, on half the clock for a point more a win
    solrace bot --url ws://a:8765/ws --url ws://b:8765/ws ...   # failover between processes

Without --race or --quick the first bot creates a public race with one seat
per bot. --race takes a race's link as `solrace play --join` does: its server
(unless --url names one) and, for a private race, its invite (or give --invite).
With several --url the bots connect to the first that answers and, if its
process goes away, resume on another (processes sharing one Redis).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import platform
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from typing import Any, TextIO

from client.bots.offline import Played, deal_seed, play_one
from client.bots.strategies import STRATEGIES, SearchStrategy, make
from client.cli import DEFAULT_URL
from client.cli.checks import non_negative_float, positive_float, positive_int
from protocol import rules

DEFAULT_GAME = "racing-aces"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--strategy",
        default="search",
        choices=[*STRATEGIES, "all"],
        help="strategy (default search; 'all' = each in turn with --stats)",
    )
    parser.add_argument(
        "--nodes",
        type=positive_int,
        default=None,
        help=f"search: positions generated per move (default {SearchStrategy().nodes})",
    )
    parser.add_argument(
        "--move-ms",
        type=positive_float,
        default=None,
        help="search: also stop each move's search after this many ms (online use; "
        "results then depend on the machine)",
    )
    off = parser.add_argument_group("offline measurement")
    off.add_argument(
        "--stats",
        metavar="GAME",
        choices=[*sorted(rules.GAMES), "all"],
        help="play deals offline through the engine and print win rate and cards home",
    )
    off.add_argument("--deals", type=positive_int, default=100, help="deals per strategy (default 100)")
    off.add_argument("--seed-prefix", default="bots", help="deal seeds derive from this (default 'bots')")
    off.add_argument("--show-wins", action="store_true", help="also list the seeds of the deals won")
    off.add_argument(
        "--jobs",
        type=positive_int,
        default=os.cpu_count() or 1,
        help="worker processes (default: CPU count); results do not depend on it",
    )
    on = parser.add_argument_group("online")
    on.add_argument(
        "--url",
        action="append",
        help=f"server WebSocket URL (default {DEFAULT_URL}); repeat it for several processes of one "
        "server: the bots fail over between them",
    )
    on.add_argument("--count", type=positive_int, default=1, help="bots to run (default 1)")
    on.add_argument(
        "--game",
        choices=sorted(rules.GAMES),
        help=f"game of a created or quick-matched race (default {DEFAULT_GAME}); with --race the race's own",
    )
    on.add_argument(
        "--race",
        metavar="ID_OR_LINK",
        help="join this race: its id (on --url), or its link (its server, and a private race's invite)",
    )
    on.add_argument("--invite", metavar="SECRET", help="with --race: the invite of a private race")
    on.add_argument("--quick", action="store_true", help="quick-match instead of creating a race")
    on.add_argument("--arena", help="join this arena and play its races until it ends")
    on.add_argument(
        "--berserk",
        action="store_true",
        help="with --arena: berserk every race (half the clock, one more point for a win)",
    )
    on.add_argument("--seats", type=positive_int, help="quick-match race size (default: --count, at least 2)")
    on.add_argument("--time-limit", type=positive_int, default=600, help="race clock for a created race, s")
    on.add_argument("--delay-ms", type=non_negative_float, default=0, help="pause after each move, ms")
    on.add_argument("--name", default="bot", help="bot name prefix (bot-1, bot-2, ...)")


def check_arguments(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Usage errors argparse alone cannot see (exit 2). The bots' names are the --name prefix
    and a number: a prefix the server cannot take that way was refused only at the hello, as
    "bad-message: `name`: ...". A race link with no race in it, or --invite without --race."""
    from client.cli.checks import check_link, name_ok, name_rule

    last = f"{args.name}-{args.count}"  # the longest
    if not name_ok(last):
        names = f"{args.name}-1" + (f" to {last}" if args.count > 1 else "")
        parser.error(f"argument --name: the bots are named {names}: a name must be {name_rule()}")
    check_link(parser, "--race", args.race)
    if args.invite is not None and not args.race:
        parser.error("argument --invite: goes with --race")
    if args.berserk and not args.arena:
        parser.error("argument --berserk: goes with --arena")


def _strategy_options(args: argparse.Namespace, name: str) -> dict[str, Any]:
    if name != "search":
        return {}
    options: dict[str, Any] = {}
    if args.nodes:
        options["nodes"] = args.nodes
    if args.move_ms:
        options["time_ms"] = args.move_ms
    return options


def run(args: argparse.Namespace) -> int:
    if args.stats:
        return run_stats(args)
    if args.strategy == "all":
        print("solrace bot: --strategy all is for --stats; pick one for a race", file=sys.stderr)
        return 2
    return run_online(args)


def measure(
    game_id: str,
    strategy: str,
    deals: int,
    prefix: str,
    jobs: int,
    options: dict[str, Any] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> list[Played]:
    """Play ``deals`` seeded deals of one game with one strategy.

    ``progress(done, deals)`` is called as results come in (in deal order).
    """
    tasks = [(game_id, deal_seed(prefix, i), strategy, options or {}) for i in range(deals)]
    played: list[Played] = []
    with contextlib.ExitStack() as stack:
        results: Iterator[Played]
        if jobs <= 1:
            results = map(play_one, tasks)
        else:
            pool = stack.enter_context(ProcessPoolExecutor(jobs))
            results = pool.map(play_one, tasks, chunksize=max(1, deals // (8 * jobs)))
        for p in results:
            played.append(p)
            if progress is not None:
                progress(len(played), deals)
    return played


class Progress:
    """Deals played so far, on stderr: at most once per ``interval`` seconds, and at the end.

    On a terminal the line is rewritten in place and erased at the end (the
    table row follows on stdout); otherwise each report is a line of its own.
    """

    def __init__(self, stream: TextIO, interval: float = 1.0) -> None:
        self.stream = stream
        self.interval = interval
        self.tty = stream.isatty()
        self.started = self.last = time.monotonic()
        self.label = ""

    def start(self, label: str) -> None:
        self.label = label
        self.started = time.monotonic()
        self.last = 0.0  # the first result is always reported

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if done < total and now - self.last < self.interval:
            return
        self.last = now
        text = f"{self.label}: {done}/{total} deals, {now - self.started:.1f} s"
        if not self.tty:
            self.stream.write(text + "\n")
        elif done < total:
            self.stream.write("\r\033[K" + text)
        else:
            self.stream.write("\r\033[K")
        self.stream.flush()


def run_stats(args: argparse.Namespace) -> int:
    games = sorted(rules.GAMES) if args.stats == "all" else [args.stats]
    strategies = list(STRATEGIES) if args.strategy == "all" else [args.strategy]
    print(
        f"# solrace bot --stats: {args.deals} deals each, seeds sha256('{args.seed_prefix}/i')[:32], "
        f"{args.jobs} job(s), {platform.python_implementation()} {platform.python_version()}, "
        f"{platform.machine()}"
    )
    header = (
        f"{'game':<22} {'strategy':<8} {'deals':>5} {'won':>4} {'win %':>6} {'home':>7} {'total':>5} "
        f"{'home %':>6} {'moves':>6} {'s/deal':>7}"
    )
    print(header, flush=True)
    progress = Progress(sys.stderr)
    for game_id in games:
        for name in strategies:
            progress.start(f"{game_id} {name}")
            played = measure(
                game_id,
                name,
                args.deals,
                args.seed_prefix,
                args.jobs,
                _strategy_options(args, name),
                progress,
            )
            n = len(played)
            won = sum(p.won for p in played)
            home = sum(p.cards_home for p in played) / n
            total = played[0].total
            moves = sum(p.moves for p in played) / n
            cpu = sum(p.seconds for p in played) / n
            print(
                f"{game_id:<22} {name:<8} {n:>5} {won:>4} {100 * won / n:>6.1f} {home:>7.1f} {total:>5} "
                f"{100 * home / total:>6.1f} {moves:>6.0f} {cpu:>7.2f}",
                flush=True,
            )
            if args.show_wins and won:
                print(f"  won: {' '.join(p.seed for p in played if p.won)}", flush=True)
    return 0


def run_online(args: argparse.Namespace) -> int:
    from client.bots.online import run_bots
    from client.library import Unreachable

    if sum(bool(x) for x in (args.race, args.quick, args.arena)) > 1:
        print("solrace bot: give one of --race, --quick, --arena", file=sys.stderr)
        return 2
    strategies = [make(args.strategy, **_strategy_options(args, args.strategy)) for _ in range(args.count)]
    urls: list[str] = args.url or [DEFAULT_URL]
    race, invite = args.race, args.invite
    if race:
        from client.cli.race_link import race_source

        # A link names its server (unless --url does) and a private race's invite: it was sent
        # whole as the race id, and a private race could not be joined at all.
        urls, race, link_invite = race_source(race, args.url)
        invite = invite or link_invite

    def announce(race: str, game: str) -> None:
        if args.race and args.game and args.game != game:
            print(f"solrace bot: note: race {race} is {game}, not {args.game}", file=sys.stderr)
        print(f"race {race}: {args.count} {args.strategy} bot(s) playing {game}", flush=True)

    def queued() -> None:
        # A quick match waits for rivals, silently until one came: say what it waits for.
        game = args.game or DEFAULT_GAME
        where = f" --url {urls[0]}" if args.url else ""
        print(
            f"{args.count} {args.strategy} bot(s) waiting for rivals in the {game} quick-match queue "
            f"(solrace play{where} --game {game} --quick meets them; ctrl+c stops)",
            flush=True,
        )

    if args.arena:
        return run_arena(args, strategies, urls)
    try:
        results = asyncio.run(
            run_bots(
                urls,
                args.game or DEFAULT_GAME,
                strategies,
                race=race,
                invite=invite,
                quick=args.quick,
                seats=args.seats,
                time_limit_s=args.time_limit,
                delay_ms=args.delay_ms,
                name_prefix=args.name,
                on_race_game=announce,
                on_queued=queued,
            )
        )
    except Unreachable as e:  # what each URL answered, in words
        print(f"solrace bot: {e.plain()}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"solrace bot: cannot reach {' or '.join(urls)}: {e}", file=sys.stderr)
        return 1
    except Exception as e:  # a server error reply (no-such-race, race-full, ...)
        print(f"solrace bot: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    for r in sorted(results, key=lambda r: (r.rank is None, r.rank or 0)):
        extra = f"  errors: {', '.join(r.errors)}" if r.errors else ""
        print(
            f"rank {r.rank if r.rank is not None else '-'}  {r.name:<10} {r.status:<8} "
            f"home {r.home}/{r.total}  moves {r.moves}  race {r.race}{extra}"
        )
    return 0


def run_arena(args: argparse.Namespace, strategies: list[Any], urls: list[str]) -> int:
    from client.bots.arena import run_arena_bots
    from client.library import Unreachable

    def announce(race: str) -> None:
        print(f"arena {args.arena}: race {race}", flush=True)

    try:
        bots = asyncio.run(
            run_arena_bots(
                urls,
                args.arena,
                strategies,
                delay_ms=args.delay_ms,
                name_prefix=args.name,
                on_race=announce,
                berserk=args.berserk,
            )
        )
    except Unreachable as e:
        print(f"solrace bot: {e.plain()}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"solrace bot: cannot reach {' or '.join(urls)}: {e}", file=sys.stderr)
        return 1
    except Exception as e:  # a server error reply (no-arena, arena-over, ...)
        print(f"solrace bot: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    for b in bots:
        # Not "wins": the arena counts a win only for a first place held alone (docs/arenas.md).
        firsts = sum(1 for r in b.races if r.rank == 1)
        print(f"{b.name:<10} races {len(b.races)}  first places {firsts} (shared ones too)")
    return 0
