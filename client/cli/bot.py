"""`solrace bot`: bots that race on a server, or strategies measured offline.

Offline (no server): play N deals per strategy through the rules engine and
print the win rate and mean cards home::

    solrace bot --stats fours-up --deals 200 --strategy all

The deal seeds are derived from ``--seed-prefix`` (client/bots/offline.py), so
a run is reproducible; strategies see only their player's view.

Online: N bots connect, take seats in one race and play it::

    solrace bot --url ws://127.0.0.1:8765/ws --count 3 --game racing-aces --strategy search
    solrace bot ... --race RACE_ID     # join an existing race and ready up
    solrace bot ... --quick            # quick-match (bots may meet people)

Without --race or --quick the first bot creates a public race with one seat
per bot.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import sys
from concurrent.futures import ProcessPoolExecutor

from client.bots.offline import Played, deal_seed, play_one
from client.bots.strategies import STRATEGIES, make
from protocol import rules


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--strategy",
        default="search",
        choices=[*STRATEGIES, "all"],
        help="strategy (default search; 'all' = each in turn with --stats)",
    )
    parser.add_argument(
        "--nodes",
        type=int,
        default=None,
        help="search: positions generated per move (default %d)" % make("search").nodes,
    )
    parser.add_argument(
        "--move-ms",
        type=float,
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
    off.add_argument("--deals", type=int, default=100, help="deals per strategy (default 100)")
    off.add_argument("--seed-prefix", default="bots", help="deal seeds derive from this (default 'bots')")
    off.add_argument("--show-wins", action="store_true", help="also list the seeds of the deals won")
    off.add_argument(
        "--jobs",
        type=int,
        default=os.cpu_count() or 1,
        help="worker processes (default: CPU count); results do not depend on it",
    )
    on = parser.add_argument_group("online")
    on.add_argument("--url", default="ws://127.0.0.1:8765/ws", help="server WebSocket URL")
    on.add_argument("--count", type=int, default=1, help="bots to run (default 1)")
    on.add_argument("--game", choices=sorted(rules.GAMES), default="racing-aces")
    on.add_argument("--race", help="join this race id")
    on.add_argument("--quick", action="store_true", help="quick-match instead of creating a race")
    on.add_argument("--seats", type=int, help="quick-match race size (default: --count, at least 2)")
    on.add_argument("--time-limit", type=int, default=600, help="race clock for a created race, s")
    on.add_argument("--delay-ms", type=float, default=0, help="pause after each move, ms")
    on.add_argument("--name", default="bot", help="bot name prefix (bot-1, bot-2, ...)")


def _strategy_options(args: argparse.Namespace, name: str) -> dict:
    if name != "search":
        return {}
    options: dict = {}
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
    game_id: str, strategy: str, deals: int, prefix: str, jobs: int, options: dict | None = None
) -> list[Played]:
    """Play ``deals`` seeded deals of one game with one strategy."""
    tasks = [(game_id, deal_seed(prefix, i), strategy, options or {}) for i in range(deals)]
    if jobs <= 1:
        return [play_one(t) for t in tasks]
    with ProcessPoolExecutor(jobs) as pool:
        return list(pool.map(play_one, tasks, chunksize=max(1, deals // (4 * jobs))))


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
    print(header)
    for game_id in games:
        for name in strategies:
            played = measure(
                game_id, name, args.deals, args.seed_prefix, args.jobs, _strategy_options(args, name)
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

    if args.count < 1:
        print("solrace bot: --count must be at least 1", file=sys.stderr)
        return 2
    strategies = [make(args.strategy, **_strategy_options(args, args.strategy)) for _ in range(args.count)]

    def announce(race: str) -> None:
        print(f"race {race}: {args.count} {args.strategy} bot(s) playing {args.game}", flush=True)

    try:
        results = asyncio.run(
            run_bots(
                args.url,
                args.game,
                strategies,
                race=args.race,
                quick=args.quick,
                seats=args.seats,
                time_limit_s=args.time_limit,
                delay_ms=args.delay_ms,
                name_prefix=args.name,
                on_race=announce,
            )
        )
    except (OSError, ConnectionError) as e:
        print(f"solrace bot: cannot reach {args.url}: {e}", file=sys.stderr)
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
