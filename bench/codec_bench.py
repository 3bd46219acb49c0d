"""Codec micro-benchmark: the cost of decoding one inbound frame.

The `move` frame is the server's hot path (every move of every player goes
through `decode_client`), so it is timed alone, with and without `view`,
beside a `resync` and a `create` (the cold, optional-field-heavy requests).
Each figure is the best over many short rounds of the mean per call of a
tight loop: per-call perf_counter_ns would measure the timer, not the call,
and on a shared machine the best round is the one the neighbours disturbed
least (a median moves by a third from run to run there).

    .venv/bin/python bench/codec_bench.py            # full run
    .venv/bin/python bench/codec_bench.py --quick    # about a second
"""

from __future__ import annotations

import argparse
import gc
import platform
import sys
from pathlib import Path
from time import perf_counter_ns

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from protocol import messages as m  # noqa: E402

FRAMES: dict[str, bytes] = {
    "move": m.encode({"t": "move", "rid": 12345, "race": "r8a1c0f3b2d4e5f6a", "n": 57, "move": "t2:3>t5"}),
    "move+view": m.encode(
        {"t": "move", "rid": 12345, "race": "r8a1c0f3b2d4e5f6a", "n": 57, "move": "w>f3", "view": True}
    ),
    "resync": m.encode({"t": "resync", "rid": 7, "race": "r8a1c0f3b2d4e5f6a", "since": 40}),
    "create": m.encode({"t": "create", "rid": 1, "game": "racing-aces", "seats": 4, "private": True}),
}


def per_call_ns(frame: bytes, loops: int, rounds: int) -> float:
    decode = m.decode_client
    decode(frame)  # must be valid: a refused frame would time the error path
    means = []
    gc.disable()
    try:
        for _ in range(rounds):
            t0 = perf_counter_ns()
            for _ in range(loops):
                decode(frame)
            means.append((perf_counter_ns() - t0) / loops)
    finally:
        gc.enable()
    return min(means)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer loops (about a second)")
    args = ap.parse_args()
    loops, rounds = (10_000, 10) if args.quick else (20_000, 60)
    print(
        f"python {platform.python_version()}, {platform.machine()}; {loops} calls x {rounds} rounds, best round"
    )
    for name, frame in FRAMES.items():
        ns = per_call_ns(frame, loops, rounds)
        print(f"decode_client {name:<10} {len(frame):3d} B  {ns:7.1f} ns/frame")


if __name__ == "__main__":
    main()
