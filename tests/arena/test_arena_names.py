"""Scheduled arenas have names people read, built from their rule (docs/arenas.md §1):
``Hourly Fours Up``, ``Daily Racing Aces · 20:00 UTC``; their ids stay ``KIND-GAME-MINUTES``."""

from __future__ import annotations

import pytest
from waiting import until

import client
from protocol import messages as m
from protocol.rules import GAMES
from protocol.rules.facts import game_name
from server.arena.schedule import DAY_MS, HOUR_MS, Recurrence, arenas_between, default_schedule, occurrences

T0 = 1_764_547_200_000  # 2025-12-01 00:00 UTC

pytestmark = pytest.mark.timeout(60)


def test_the_default_schedule_names_its_arenas() -> None:
    arenas = arenas_between(default_schedule(["racing-aces", "fours-up"]), T0, T0 + DAY_MS)
    hourly = {a.id: a.name for a in arenas if a.id.startswith("hourly-")}
    daily = [a for a in arenas if a.id.startswith("daily-")]
    minutes = T0 // 60_000
    assert hourly[f"hourly-fours-up-{minutes}"] == "Hourly Fours Up"
    assert hourly[f"hourly-racing-aces-{minutes + 60}"] == "Hourly Racing Aces"
    assert len(daily) == 1
    (d,) = daily
    assert d.id == f"daily-{d.game}-{(T0 + 20 * HOUR_MS) // 60_000}"
    assert d.name == f"Daily {game_name(d.game)} · 20:00 UTC"


def test_every_name_is_readable() -> None:
    """No id-like names: every game's display name, no dashes of ids."""
    for a in arenas_between(default_schedule(list(GAMES)), T0, T0 + 2 * DAY_MS):
        assert a.name.startswith(("Hourly ", "Daily ")), a.name
        assert game_name(a.game) in a.name and a.game not in a.name
        assert a.id.startswith(("hourly-", "daily-")) and a.id.split("-", 1)[1].startswith(a.game)


def test_a_configured_rule_of_days_shows_its_time_of_day() -> None:
    weekly = Recurrence(
        "weekly",
        ("rouge-et-noir",),
        every_ms=7 * DAY_MS,
        duration_ms=2 * HOUR_MS,
        offset_ms=DAY_MS + 570 * 60_000,
    )
    (a,) = occurrences(weekly, T0, T0 + 7 * DAY_MS)
    assert a.name == "Weekly Rouge et Noir · 09:30 UTC"
    quick = Recurrence("quick", ("fours-up",), every_ms=10 * 60_000, duration_ms=5 * 60_000)
    assert {a.name for a in occurrences(quick, T0, T0 + HOUR_MS)} == {"Quick Fours Up"}


async def test_the_arena_list_carries_the_names(make_server) -> None:
    app = await make_server(arena_tick_ms=100)
    async with client.connect(app.ws_url, name="ann") as c:

        async def listed() -> list[m.ArenaSummary]:
            got: m.ArenaListData = await c.request(m.Arenas())
            return got.arenas

        arenas = await until(listed)
        hourly = [a for a in arenas if a.id.startswith("hourly-")]
        assert hourly
        for a in hourly:
            assert a.name == f"Hourly {game_name(a.game)}"
        for a in arenas:
            if a.id.startswith("daily-"):
                assert a.name == f"Daily {game_name(a.game)} · 20:00 UTC"
        one: m.ArenaData = await c.request(m.ArenaGet(arena=hourly[0].id))
        assert one.arena.name == hourly[0].name
