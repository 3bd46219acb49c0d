"""`solrace bench`: load-test a race server against an echo baseline, in one run.

    solrace bench [moves] [--races 50] [--players 2] [--duration 10] [--rate R]
    solrace bench idle [--conns 10000]
    solrace bench fanout [--spectators 1000] [--update-rate 5]

Starts the server under test (`solrace serve` on 127.0.0.1, a free port, its
private Redis unless --redis) and a bare websockets echo server
(client/loadgen/echo.py), drives both from this process with a lean
WebSocket client, and prints every figure beside the baseline's with the
ratio. CPU is read from /proc (utime+stime) for the server, its redis-server
and the echo server and given as µs per operation. See docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any

from client.cli.checks import non_negative_float, positive_float, positive_int
from protocol import rules
from protocol.messages import MAX_SEATS, MIN_SEATS


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "mode",
        nargs="?",
        default="moves",
        choices=("moves", "idle", "fanout"),
        help="moves: throughput and latency (default); idle: memory per idle player; "
        "fanout: progress to S spectators",
    )
    # Bounded here: the server's refusal of a game or a seat count, or an empty race, ended the
    # run in a traceback once its servers were up.
    parser.add_argument("--races", type=positive_int, default=50, help="moves: races (default 50)")
    parser.add_argument(
        "--players",
        type=seats,
        default=2,
        help=f"players per race, {MIN_SEATS} to {MAX_SEATS} (default 2)",
    )
    parser.add_argument(
        "--game", default="fours-up", choices=sorted(rules.GAMES), help="game of the races (default fours-up)"
    )
    parser.add_argument(
        "--duration", type=positive_float, default=10.0, help="seconds measured per phase (default 10)"
    )
    parser.add_argument(
        "--warmup",
        type=non_negative_float,
        default=2.0,
        help="seconds before each phase is measured (default 2)",
    )
    parser.add_argument(
        "--slices",
        type=positive_int,
        default=4,
        help="moves: each phase measures the echo and the server in this many alternating "
        "windows of duration/slices (default 4), so both meet the same load from the "
        "rest of a shared machine; 1 = one window each, echo first",
    )
    parser.add_argument(
        "--rate",
        type=non_negative_float,
        default=0.0,
        help="moves: total msg/s of the open-loop latency phase "
        "(default: a quarter of the echo capacity, i.e. half the 50 %% target)",
    )
    parser.add_argument("--conns", type=positive_int, default=10000, help="idle: connections (default 10000)")
    parser.add_argument(
        "--settle", type=non_negative_float, default=2.0, help="idle: seconds before reading RSS (default 2)"
    )
    parser.add_argument(
        "--spectators", type=positive_int, default=1000, help="fanout: spectators (default 1000)"
    )
    parser.add_argument(
        "--update-rate",
        type=positive_float,
        default=5.0,
        help="fanout: moves/s in the watched race (default 5)",
    )
    parser.add_argument(
        "--redis", default="", help="Redis URL for the server (default: its private redis-server)"
    )
    parser.add_argument(
        "--server-arg",
        action="append",
        default=[],
        metavar="ARG",
        help="extra argument for `solrace serve` (repeat; e.g. --server-arg=--outbound-queue=512)",
    )
    parser.add_argument(
        "--profile",
        default="",
        metavar="OUT",
        help="moves: py-spy record the server during its capacity phase into OUT "
        "(.svg flame graph, .json speedscope, else raw collapsed stacks); "
        "needs `pip install py-spy`",
    )
    parser.add_argument(
        "--redis-baseline",
        choices=("call", "hset"),
        default="call",
        help="moves: the Redis baseline, EVALSHA of `return 1` (call, default) or of a script "
        "doing one HSET (hset)",
    )
    parser.add_argument("--seed", type=int, default=1, help="seed of the bots' choices (default 1)")
    parser.add_argument("--json", default="", help="also write the full result as JSON to this file")
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")


def seats(text: str) -> int:
    """A race's seat count, within the protocol's bounds."""
    value = int(text)
    if not MIN_SEATS <= value <= MAX_SEATS:
        raise argparse.ArgumentTypeError(f"must be {MIN_SEATS} to {MAX_SEATS}, not {value}")
    return value


def run(args: argparse.Namespace) -> int:
    from client.loadgen import report
    from client.loadgen import run as R

    def log(msg: str) -> None:
        if not args.quiet:
            print(msg, file=sys.stderr, flush=True)

    fn = R.MODES[args.mode]

    async def main() -> dict[str, Any]:
        return await fn(args, log)

    try:
        import uvloop
    except ImportError:  # pragma: no cover
        res = asyncio.run(main())
    else:
        res = uvloop.run(main())
    res["command"] = "solrace bench " + " ".join(sys.argv[2:]) if len(sys.argv) > 1 else "solrace bench"
    print(report.render(res))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(res, f, indent=1, default=str)
    return 0
