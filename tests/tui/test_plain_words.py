"""What a player reads on the race screen is in plain words, not the protocol's: the help
offers `refresh` (it offered `resync`), and the deal's sha256 published before the start is
its fingerprint (it was "commitment"), in the header and under the final ranking. `resync`
typed still refreshes, as before."""

from __future__ import annotations

import hashlib

import pytest

from client.tui.model import PlayerRow, RaceModel
from client.tui.race_commands import help_text, info_text
from client.tui.race_text import result_text

from .helpers import offline_play, race_started, until

JARGON = ("resync", "commitment")
SEED = "0123456789abcdef0123456789abcdef"


def _race(status: str) -> RaceModel:
    m = RaceModel(me="p1", race_id="r1", game="fours-up", status=status, host="p1", seats=2)
    m.players["p1"] = PlayerRow("p1", "ada")
    m.commitment = hashlib.sha256(SEED.encode()).hexdigest()
    m.ranking = [{"player": "p1", "name": "ada", "rank": 1, "home": 3, "status": "finished"}]
    return m


@pytest.mark.parametrize("status", ["none", "queued", "lobby", "countdown", "running", "finished"])
def test_the_help_and_the_header_speak_plainly(status: str) -> None:
    m = _race(status)
    said = help_text(m, hints=True) + info_text(m, 0, "connected", 0, None)
    assert not any(word in said for word in JARGON), said
    if status == "running":
        assert "refresh" in said and "fingerprint" in said, said


@pytest.mark.parametrize("seed", [SEED, "not the seed", None])
def test_the_final_check_names_the_fingerprint(seed: str | None) -> None:
    m = _race("finished")
    m.seed = seed  # the right seed, a wrong one, or a daily attempt's still sealed
    shown = str(result_text(m))
    assert "fingerprint" in shown and not any(word in shown for word in JARGON), shown


@pytest.mark.parametrize("word", ["refresh", "resync"])
async def test_refresh_asks_the_server_for_the_race_again(word: str) -> None:
    app, session = offline_play("racing-aces", rival_interval=5)
    async with app.run_test(size=(80, 24)) as pilot:
        await race_started(pilot)
        asked = sum(1 for sent in session.sent if sent["t"] == "resync")
        await pilot.press(*word, "enter")
        await until(
            pilot,
            lambda: sum(1 for sent in session.sent if sent["t"] == "resync") > asked,
            what=f"{word!r} asks for the race",
        )
        assert not app.query_one("#status").has_class("error")
