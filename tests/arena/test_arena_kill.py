"""An arena survives a kill -9 of one of the two processes pairing and scoring it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import redis
from must import must

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
from arena_driver import race_rows  # noqa: E402

from server.arena import Arena, ArenaStore  # noqa: E402
from server.arena.scoring import rerank, score_race  # noqa: E402

PLAYERS = 40


def end_now(sync: redis.Redis, arena: Arena) -> None:
    """Test hook: the arena ends now. Its stored end moves to now (the drivers read the arena
    each tick, the store's scripts read `ends`): pairing stops, the races formed before are
    applied, and the arena is finalized as at the end of its time."""
    now = int(time.time() * 1000)
    sync.hset("{arena:kill}:meta", mapping={"ends": now, "duration_ms": now - arena.starts})


def wait_for(cond, timeout=30.0, what="condition"):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


async def test_arena_survives_kill_9(clients, clean_redis):
    store = ArenaStore(clients())
    players = [f"p{i:02d}" for i in range(PLAYERS)]
    procs = []
    try:
        for _ in range(2):
            proc = subprocess.Popen(
                [sys.executable, str(HERE / "arena_driver.py"), clean_redis, "kill"],
                cwd=ROOT,
                env={**os.environ, "PYTHONPATH": str(ROOT)},
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            procs.append(proc)
        for proc in procs:
            assert must(proc.stdout).readline().strip() == "ready", must(proc.stderr).read()
        now = store.clock()
        # An hour long: far beyond the waits below, however loaded the machine. The test
        # ends it once the survivor has paired after the kill (end_now).
        arena = Arena("kill", "racing-aces", starts=now + 300, duration_ms=3_600_000, time_limit_s=30)
        await store.create(arena)
        for p in players:
            await store.join(arena.id, p, p)
        sync = redis.Redis.from_url(clean_redis)
        results_key = "{arena:kill}:results"
        wait_for(lambda: sync.hlen(results_key) >= 30, what="races applied by both processes")
        procs[0].send_signal(signal.SIGKILL)
        procs[0].wait(10)
        killed_at = store.clock()
        assert killed_at < arena.ends, "the arena should outlive the kill"

        def formed_after_kill() -> bool:
            return any(json.loads(v)["formed"] > killed_at for v in sync.hvals(results_key))

        wait_for(formed_after_kill, what="a race paired and applied by the survivor after the kill")
        end_now(sync, arena)
        assert procs[1].wait(60) == 0, must(procs[1].stderr).read()
        sync.close()
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait(10)

    info = must(await store.get(arena.id))
    assert info.finalized is not None
    assert int((await store.r.hget("{arena:kill}:meta", "dropped")).decode()) == 0
    results = sorted((await store.results(arena.id)).values(), key=lambda r: r["seq"])
    assert any(r["formed"] > killed_at for r in results)  # the survivor kept pairing

    streaks: dict[str, int] = {}
    totals = {p: 0 for p in players}
    spans: dict[str, list[tuple[int, int]]] = {p: [] for p in players}
    for res in results:
        rows = race_rows(res["race"], res["players"])
        assert res["ranking"] == rerank(rows)
        for rp in score_race(rows, streaks):
            streaks[rp.player] = rp.streak
            totals[rp.player] += rp.points
            spans[rp.player].append((res["formed_seq"], res["seq"]))
    final = {row.standing.player: row.standing for row in must(await store.final(arena.id))}
    assert {p: s.points for p, s in final.items()} == totals
    for p in players:
        ordered = sorted(spans[p])
        assert all(nxt[0] > prev[1] for prev, nxt in zip(ordered, ordered[1:], strict=False))
