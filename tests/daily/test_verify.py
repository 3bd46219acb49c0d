"""`solrace verify` against a real daily: confirms an honest record, refutes tampering."""

from __future__ import annotations

import argparse
import copy
import json
from typing import Any

import msgpack
import pytest

from client.cli import verify as v
from protocol import rules
from server.daily import Daily, Result, days, fair

GAME = "racing-aces"
DAY = "2025-03-14"
T0 = days.opens_at(DAY)


def greedy(seed: str, limit: int = 5000) -> list[str]:
    """A simple deterministic player: home first, then to the tableau, then draw."""
    g = rules.deal(GAME, seed)
    moves: list[str] = []
    while len(moves) < limit and not g.won:
        legal = g.legal_moves()
        home = [m for m in legal if ">f" in m and not m.startswith("f")]
        tab = [m for m in legal if ">t" in m and m[0] not in "tf"]
        choices = home or tab or [m for m in legal if m == "draw"]
        if not choices:
            break
        g.play(choices[0])
        moves.append(choices[0])
    return moves


def figures(seed: str, moves: list[str], start: int) -> tuple[Result, list[list]]:
    """The honest result of playing `moves` one per second from `start`."""
    g = rules.deal(GAME, seed)
    first = {0: start}
    timed: list[list[Any]] = []
    for i, m in enumerate(moves):
        at = start + 1000 * (i + 1)
        g.play(m)
        first.setdefault(g.cards_home, at)
        timed.append([m, at])
    won = g.won
    res = Result(
        "won" if won else "finished",
        won,
        g.cards_home,
        g.total,
        len(moves),
        timed[-1][1] - start if won else None,
        first[g.cards_home] - start,
    )
    return res, timed


class OneRace:
    async def __call__(self, deal, player, limit):
        return "race-" + player


@pytest.fixture
async def doc(r):
    """A finalized day with a winner and two non-winners, and its published replays."""
    clock = type("C", (), {"now": T0 + 3600_000, "__call__": lambda self: self.now})()
    for i in range(200):  # a secret whose deal the greedy player wins
        secret = f"secret-{i}"
        seed = fair.daily_seed(secret, GAME, DAY)
        win = greedy(seed)
        if rules.replay(GAME, seed, win).won:
            break
    daily = Daily(r, clock=clock, secret=secret)
    plays = {"winner": win, "short": win[:60], "shorter": win[:30]}
    for p, moves in plays.items():
        att = await daily.start(GAME, p, OneRace())
        start = clock.now
        res, timed = figures(seed, moves, start)
        await daily.record(GAME, DAY, p, p.title(), att.race, res, timed, start)
    clock.now = T0 + days.DAY_MS + daily.finalize_grace_ms
    return await daily.replay(GAME, DAY)


def test_an_honest_daily_is_confirmed(doc):
    assert [e["player"] for e in doc["ranking"]] == ["winner", "short", "shorter"]
    rep = v.verify(doc)
    assert rep.confirmed, rep.text()
    assert any("fingerprint (sha256 of the seed)" in c for c in rep.checked)
    assert any("times of 3" in c for c in rep.checked)
    assert any("ranking order" in c for c in rep.checked)
    rep = v.verify(doc, commitment=doc["commitment"])
    assert rep.confirmed


def run_cli(tmp_path, doc, *extra, fmt="json"):
    path = tmp_path / f"replay.{fmt}"
    if fmt == "json":
        path.write_text(json.dumps(doc))
    else:
        path.write_bytes(msgpack.packb(doc))
    parser = argparse.ArgumentParser()
    v.add_arguments(parser)
    return v.run(parser.parse_args([str(path), *extra]))


def test_cli_exit_codes(tmp_path, doc, capsys):
    assert run_cli(tmp_path, doc) == 0
    assert "CONFIRMED" in capsys.readouterr().out
    assert run_cli(tmp_path, doc, fmt="msgpack") == 0
    assert run_cli(tmp_path, doc, "--fingerprint", "0" * 64) == 1
    out = capsys.readouterr().out
    assert "REFUTED" in out and "given fingerprint" in out and "commitment" not in out
    assert run_cli(tmp_path, doc, "--commitment", "0" * 64) == 1  # the old name of the flag still works
    assert "given fingerprint" in capsys.readouterr().out
    assert run_cli(tmp_path, doc, "--fingerprint", doc["commitment"]) == 0
    out = capsys.readouterr().out
    assert "CONFIRMED: the seed is the one its fingerprint (sha256 of the seed) promised" in out, out
    (tmp_path / "junk").write_bytes(b"\xc1\xc1 not a replay")
    parser = argparse.ArgumentParser()
    v.add_arguments(parser)
    assert v.run(parser.parse_args([str(tmp_path / "junk")])) == 2


def refuted(doc, *needles, **kw):
    rep = v.verify(doc, **kw)
    assert not rep.confirmed
    text = rep.text()
    for needle in needles:
        assert needle in text, text
    return rep


def test_an_illegal_move_is_caught(doc):
    bad = copy.deepcopy(doc)
    moves = bad["players"][0]["moves"]
    moves[10][0] = "t0>r0"  # nothing may go onto a reserve
    refuted(bad, "winner: move 11 't0>r0' is illegal (not-accepted")


def test_a_swapped_move_is_caught(doc):
    bad = copy.deepcopy(doc)
    moves = bad["players"][1]["moves"]
    moves[5], moves[6] = moves[6], moves[5]
    rep = v.verify(bad)
    # Either a move becomes illegal or the figures no longer match.
    assert not rep.confirmed


def test_tampered_figures_are_caught(doc):
    bad = copy.deepcopy(doc)
    bad["ranking"][1]["home"] += 1
    refuted(bad, "short: recorded home")
    bad = copy.deepcopy(doc)
    bad["ranking"][0]["time_ms"] -= 5000
    refuted(bad, "winner: recorded time_ms")
    bad = copy.deepcopy(doc)
    bad["ranking"][2]["moves"] = 3
    refuted(bad, "shorter: recorded moves 3, the replay gives 30")
    bad = copy.deepcopy(doc)
    bad["ranking"][1]["home_at_ms"] -= 1
    refuted(bad, "short: recorded home_at_ms")
    bad = copy.deepcopy(doc)
    del bad["players"][2]["moves"][-1]
    refuted(bad, "shorter: recorded moves 30, the replay gives 29")


def test_a_wrong_order_is_caught(doc):
    bad = copy.deepcopy(doc)
    bad["ranking"][1]["rank"], bad["ranking"][2]["rank"] = 3, 2
    refuted(bad, "ranked 3, the ranking rule gives 2")


def test_a_wrong_seed_is_caught(doc):
    bad = copy.deepcopy(doc)
    bad["seed"] = fair.daily_seed("another secret", GAME, DAY)
    refuted(bad, "differs from the published fingerprint")
    refuted(doc, "is not the given seed", seed="0" * 32)


def test_a_race_replay_infers_its_start(doc):
    # A race's `replay` from a server before `starts_at` has no start time: it is inferred
    # from one player and checked against the others (here all three played from one start).
    race = copy.deepcopy(doc)
    race["race"] = "r1"
    for p in race["players"]:
        p.pop("starts_at")
    rep = v.verify(race)
    assert rep.confirmed and any("inferred" in n for n in rep.notes), rep.text()


def test_the_end_of_each_game_is_checked_against_its_figures(doc):
    # A race's `replay` says when each player's game ended (`ended_ms`): a win at its time, a
    # game given up or timed out never before its last move.
    race = copy.deepcopy(doc)
    race["race"] = "r1"
    ranked = {e["player"]: e for e in race["ranking"]}
    for p in race["players"]:
        e = ranked[p["player"]]
        e["last_move_ms"] = p["moves"][-1][1] - p.pop("starts_at")  # as a race's entries have it
        p["ended_ms"] = e["time_ms"] if e["time_ms"] is not None else e["last_move_ms"] + 5000
    rep = v.verify(race)
    assert rep.confirmed and any("ended_ms" in c for c in rep.checked), rep.text()
    bad = copy.deepcopy(race)
    bad["players"][0]["ended_ms"] += 1
    refuted(bad, "winner: ended_ms")
    bad = copy.deepcopy(race)
    bad["players"][1]["ended_ms"] = ranked["short"]["last_move_ms"] - 1
    refuted(bad, "short: ended_ms")


def test_unverifiable_input(doc):
    with pytest.raises(v.InputError):
        v.verify({**doc, "game": "chess"})
    with pytest.raises(v.InputError):
        v.verify({**doc, "seed": None})
    with pytest.raises(v.InputError):
        v.verify({**doc, "rules_version": 99})
