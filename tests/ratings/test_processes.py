"""Two real processes end the same rated races: every race is applied exactly once."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import redis
from must import must

from server.ratings import keys
from server.ratings.rating import NEW, Pairing, Rating, fairness_weights, rate_race, with_race

sys.path.insert(0, str(Path(__file__).resolve().parent))
from record_races import entrants_of  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
HELPER = Path(__file__).with_name("record_races.py")
GAME = "racing-aces"
PLAYERS = ["pa", "pb", "pc", "pd", "pe"]
RACES = 12
T0 = 1_700_000_000_000


def expected() -> dict[str, Rating]:
    """The same races applied once each, in order, by the pure functions."""
    ratings = {p: NEW for p in PLAYERS}
    pairings: dict[str, list[Pairing]] = {}
    for i in range(RACES):
        at = T0 + i
        weights = fairness_weights(PLAYERS, pairings, at)
        ratings = rate_race(entrants_of(PLAYERS, i), ratings, weights)
        pairings.update(with_race(pairings, PLAYERS, at))
    return ratings


def test_two_processes_ending_the_same_races_apply_each_once(clean_redis):
    import json

    with redis.Redis.from_url(clean_redis) as r:
        for p in PLAYERS:
            r.hset(keys.account(p), mapping={"name": "n" + p, "key": "n" + p, "pw": "x", "created": 0})
        procs = [
            subprocess.Popen(
                [sys.executable, str(HELPER), clean_redis, GAME, str(RACES), *PLAYERS],
                cwd=ROOT,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for _ in range(2)
        ]
        try:
            for proc in procs:
                assert must(proc.stdout).readline().strip() == "ready", must(proc.stderr).read()
            r.set("go", 1)
            applied = []
            for proc in procs:
                out, err = proc.communicate(timeout=60)
                assert proc.returncode == 0, err
                applied.append(int(out.strip()))
        finally:
            for proc in procs:
                if proc.poll() is None:
                    proc.kill()
        assert sum(applied) == RACES
        want = expected()
        for p in PLAYERS:
            got = json.loads(r.hget(keys.players(GAME), p))
            assert abs(got["mu"] - want[p].mu) < 1e-9 and abs(got["sigma"] - want[p].sigma) < 1e-9
            assert got["races"] == want[p].races
            assert r.llen(keys.history(GAME, p)) == RACES
