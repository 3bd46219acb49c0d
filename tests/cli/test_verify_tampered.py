"""`solrace verify` never confirms a tampered result: the real replay of a 2-player race, with
one of its figures set to nil, an extra ranking row, its ranks moved off 1, a finisher turned
into a timeout, or a field of the wrong shape (an input error, exit 2, not a traceback that
exits 1 as REFUTED does)."""

from __future__ import annotations

import argparse
import copy
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from waiting import until

from client import library as client
from client.cli import verify as v

GAME = "racing-aces"


async def _played(server: Any) -> dict[str, Any]:
    """A finished race's replay: ada and bob play the same moves home, ada first, so the
    ranking comes down to `home_at_ms` (ada 1, bob 2)."""
    async with (
        client.connect(server.ws_url, name="ada") as ada,
        client.connect(server.ws_url, name="bob") as bob,
    ):
        snap = await ada.create(GAME, seats=2, time_limit_s=120)
        race = snap.race
        await bob.join(race)
        await ada.ready(race)
        await bob.ready(race)
        await ada.wait_for("start", lambda ev: ev.race == race)
        await bob.wait_for("start", lambda ev: ev.race == race)
        # ada plays greedily (home first, then onto the tableau, else draw) until 3 cards are home
        legal, homed = ["draw"], 0
        played: list[str] = []
        while homed < 3 and len(played) < 500:
            home = [mv for mv in legal if ">f" in mv and not mv.startswith("f")]
            tableau = [mv for mv in legal if ">t" in mv and mv[0] not in "tf"]
            mv = (home or tableau or ["draw"])[0]
            ack = await ada.move(race, mv, view=True)
            legal, homed = list(ack.legal or []), homed + bool(home)
            played.append(mv)
        assert homed == 3, played
        await ada.finish(race)
        # bob's moves come strictly later on the server's clock (ms): the order is not a tie
        done = time.time() * 1000
        await until(lambda: time.time() * 1000 > done + 5, what="the clock to move on")
        for mv in played:
            await bob.move(race, mv)
        await bob.finish(race)
        await ada.wait_for("end", lambda ev: ev.race == race)
    doc = await v.fetch(server.ws_url, race=race)
    ranks = {e["name"]: e["rank"] for e in doc["ranking"]}
    assert ranks == {"ada": 1, "bob": 2}, json.dumps(doc)
    assert doc["ranking"][0]["home"] > 0
    return doc


@pytest.fixture
async def doc(server: Any) -> dict[str, Any]:
    return await _played(server)


def row(d: dict[str, Any], name: str) -> dict[str, Any]:
    return next(e for e in d["ranking"] if e["name"] == name)


def refuted(d: dict[str, Any], *needles: str) -> v.Report:
    report = v.verify(d)
    text = report.text()
    assert not report.confirmed, text
    for needle in needles:
        assert needle in text, text
    return report


def test_the_honest_race_is_confirmed(doc: dict[str, Any]) -> None:
    report = v.verify(doc)
    assert report.confirmed, report.text()
    assert any("ranking order follows the rule for 2 entries" in c for c in report.checked), report.text()


def test_a_figure_set_to_nil_neither_skips_its_check_nor_reorders(doc: dict[str, Any]) -> None:
    """ada's home_at_ms nil ranked her last (an unknown moment counts as the latest) and its
    check was skipped: bob 1, ada 2 was CONFIRMED."""
    swapped = copy.deepcopy(doc)
    row(swapped, "ada")["home_at_ms"] = None
    row(swapped, "ada")["rank"], row(swapped, "bob")["rank"] = 2, 1
    ada, bob = row(doc, "ada")["player"], row(doc, "bob")["player"]
    refuted(
        swapped, f"{ada}: ranked 2, the ranking rule gives 1", f"{bob}: ranked 1, the ranking rule gives 2"
    )
    for name in ("home_at_ms", "last_move_ms"):
        for who in ("ada", "bob"):
            nulled = copy.deepcopy(doc)
            row(nulled, who)[name] = None
            refuted(nulled, name)


def test_an_extra_row_or_ranks_off_one_are_refuted(doc: dict[str, Any]) -> None:
    # A fake winning row for bob, above the real ones: only his last row was checked.
    dup = copy.deepcopy(doc)
    bob = row(dup, "bob")
    for e in dup["ranking"]:
        e["rank"] += 1
    dup["ranking"].insert(
        0, dict(bob, rank=1, won=True, status="won", home=52, time_ms=5000, home_at_ms=5000)
    )
    refuted(dup, f"{bob['player']}: ranked more than once", f"{bob['player']}: recorded won True")
    # Every rank moved down by 3: nobody first.
    shifted = copy.deepcopy(doc)
    for e in shifted["ranking"]:
        e["rank"] += 3
    refuted(shifted, "ranked 4, the ranking rule gives 1")
    # The same player's moves twice.
    twice = copy.deepcopy(doc)
    twice["players"].append(copy.deepcopy(twice["players"][0]))
    refuted(twice, "moves published more than once")


def test_one_entry_of_a_daily_keeps_its_boards_rank(doc: dict[str, Any]) -> None:
    """`verify --daily G --date D --player P` holds one entry, with its rank on the day's
    board: that rank cannot be checked, and is not refused."""
    start = doc["players"][1]["moves"][-1][1] - row(doc, "bob")["last_move_ms"]
    excerpt = {k: val for k, val in copy.deepcopy(doc).items() if k != "race"}
    excerpt["date"] = "2025-03-14"
    excerpt["ranking"] = [row(excerpt, "bob")]
    excerpt["players"] = [dict(p, starts_at=start) for p in excerpt["players"] if p["name"] == "bob"]
    report = v.verify(excerpt)
    assert report.confirmed, report.text()
    assert any("rank 2 not checked" in n for n in report.notes), report.text()
    # A race's replay holds every player: its first rank is 1.
    race = copy.deepcopy(doc)
    race["ranking"] = [row(race, "bob")]
    race["players"] = [p for p in race["players"] if p["name"] == "bob"]
    refuted(race, "ranked 2, the ranking rule gives 1")


def test_a_finisher_turned_into_a_timeout_is_refuted(doc: dict[str, Any]) -> None:
    """A timeout has no time_ms (docs/protocol.md `end`); the status was only checked against `won`."""
    bad = copy.deepcopy(doc)
    row(bad, "ada")["status"] = "timeout"
    refuted(bad, "status 'timeout', but time_ms")
    bad = copy.deepcopy(doc)
    row(bad, "ada")["status"] = "gave-up"
    refuted(bad, "status 'gave-up' is none of")
    # A finish before the player's last move.
    bad = copy.deepcopy(doc)
    row(bad, "bob")["time_ms"] = row(bad, "bob")["last_move_ms"] - 1
    refuted(bad, "before their last move")


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    """Set the field at `path` (keys and list indexes, dotted) to `value`."""

    def tamper(d: dict[str, Any]) -> None:
        *parents, last = [int(k) if k.isdigit() else k for k in path.split(".")]
        node: Any = d
        for k in parents:
            node = node[k]
        node[last] = value

    return tamper


def _drop_rank(d: dict[str, Any]) -> None:
    del d["ranking"][0]["rank"]


MALFORMED: list[tuple[str, Callable[[dict[str, Any]], None]]] = [
    ("a ranking row without rank", _drop_rank),
    ("a ranking row not a map", _set("ranking.0", "x")),
    ("a players entry not a map", _set("players.0", "x")),
    ("moves not a list", _set("players.0.moves", 5)),
    ("starts_at not a number", _set("starts_at", "abc")),
    ("ended_ms a string", _set("players.0.ended_ms", "x")),
    ("last_move_ms a string", _set("ranking.0.last_move_ms", "x")),
    ("rank a string", _set("ranking.0.rank", "1")),
    ("commitment not a string", _set("commitment", 5)),
    ("players a map", _set("players", {"a": 1})),
    ("ranking a map", _set("ranking", {"a": 1})),
    ("won a number", _set("ranking.0.won", 0)),
]


def test_a_malformed_document_is_an_input_error(doc: dict[str, Any], tmp_path: Path, capsys: Any) -> None:
    parser = argparse.ArgumentParser()
    v.add_arguments(parser)
    for what, tamper in MALFORMED:
        bad = copy.deepcopy(doc)
        tamper(bad)
        path = tmp_path / "bad.json"
        path.write_text(json.dumps(bad))
        assert v.run(parser.parse_args([str(path)])) == 2, what
        out, err = capsys.readouterr()
        assert not out, (what, out)
        assert err.startswith("solrace verify: the document is malformed ("), (what, err)
        assert len(err.strip().splitlines()) == 1, (what, err)
