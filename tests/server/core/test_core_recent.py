"""server/core/recent.py alone: the entry a finished race leaves in each player's recent
races, and the race's kind. No I/O."""

from __future__ import annotations

import msgspec
from lobby_race import lobby_race

from protocol import messages as m
from server.core import races as R
from server.core import recent
from server.daily.days import day_of
from server.storage.records import race_fields


def finished(race: R.Race, *, won: str | None = None) -> R.Race:
    """`race` (in its lobby, every seat taken) run to its end at 9000 ms: `won` won at 5000 ms
    after 3 moves, the others timed out without a move."""
    for p in race.players:
        race = R.set_ready(race, p.player, True, 1000, 100)
    assert race.status == R.COUNTDOWN
    race = R.begin(race)
    if won is not None:
        winner = race.seat_of(won)
        assert winner is not None
        winner.status, winner.at, winner.n, winner.home = R.WON, 5000, 3, race.total
    return R.end(race, 9000, {won: [(5000, race.total)]} if won else {})


SEED = "0f1e2d3c4b5a69788796a5b4c3d2e1f0"


def two_players() -> R.Race:
    race = R.join(lobby_race(game="racing-aces"), "p2", "bob")
    race.seed = SEED
    return race


def test_each_ranked_player_gets_their_own_result_and_never_the_seed():
    race = finished(two_players(), won="p2")
    got = recent.entries(race)
    assert set(got) == {"p1", "p2"}
    bob, ada = got["p2"], got["p1"]
    assert (bob.race, bob.game, bob.kind, bob.at, bob.players, bob.rated) == (
        "r1",
        "racing-aces",
        recent.PUBLIC,
        9000,
        2,
        False,
    )
    assert (bob.rank, bob.status, bob.home, bob.total, bob.moves) == (1, "won", race.total, race.total, 3)
    assert bob.time_ms == 5000 - race.starts_at  # type: ignore[operator]
    assert (ada.rank, ada.status, ada.moves, ada.time_ms) == (2, "timeout", 0, None)
    assert bob.arena is None and bob.before is None and bob.after is None
    for entry in got.values():
        encoded = msgspec.json.decode(msgspec.json.encode(entry))
        assert "seed" not in encoded and SEED not in msgspec.json.encode(entry).decode()
        assert msgspec.json.decode(msgspec.json.encode(entry), type=m.RecentRace) == entry


def test_an_unfinished_race_leaves_nothing_and_bots_keep_no_list():
    lobby = two_players()
    assert recent.entries(lobby) == {}
    with_bot = R.join(lobby_race(game="racing-aces"), "bot-1a2b", "Greedy bot")
    got = recent.entries(finished(with_bot))
    assert set(got) == {"p1"}
    assert got["p1"].kind == recent.BOT and got["p1"].players == 2


def test_the_kind_is_the_first_that_fits():
    race = two_players()
    assert recent.kind(race) == recent.PUBLIC
    race.private = True
    assert recent.kind(race) == recent.PRIVATE
    race.quick = True
    assert recent.kind(race) == recent.QUICK
    race.players.append(R.Player("bot-ff", "Search bot"))
    assert recent.kind(race) == recent.BOT
    race.arena = "cup"
    assert recent.kind(race) == recent.ARENA
    race.sealed = True
    assert recent.kind(race) == recent.DAILY
    assert recent.KINDS == ("daily", "arena", "bot", "quick", "private", "public")


def test_an_arena_race_names_its_arena_and_the_record_keeps_it():
    race = two_players()
    race.arena = "hourly-racing-aces-1"
    entry = recent.entries(finished(race))["p1"]
    assert (entry.kind, entry.arena) == ("arena", "hourly-racing-aces-1")
    assert race_fields(race)["arena"] == "hourly-racing-aces-1"
    assert race_fields(two_players())["arena"] == ""


def test_a_rated_race_says_so():
    race = two_players()
    race.rated = True
    assert all(e.rated for e in recent.entries(finished(race, won="p1")).values())


def test_a_daily_attempt_names_the_day_it_was_created_not_the_day_it_ended():
    """An attempt cut to the close (00:00 UTC) ends on the next day's first millisecond."""
    close = 1_764_633_600_000  # 2025-12-02T00:00:00Z
    race = two_players()
    race.sealed = True
    race.created = close - 60_000
    race = finished(race)
    race.ended = close
    entry = recent.entries(race)["p1"]
    assert (entry.kind, entry.date, day_of(entry.at)) == ("daily", "2025-12-01", "2025-12-02")
    assert all(e.date is None for e in recent.entries(finished(two_players())).values())


def test_a_private_race_says_so_whatever_its_kind():
    """A private race with a bot is of kind `bot`: `private` still tells a client that its
    replay needs the player's own session (or the invite)."""
    race = R.join(lobby_race(game="racing-aces"), "bot-1a2b", "Greedy bot")
    race.private = True
    entry = recent.entries(finished(race))["p1"]
    assert (entry.kind, entry.private) == (recent.BOT, True)
    assert not any(e.private for e in recent.entries(finished(two_players())).values())


def test_a_daily_attempt_is_not_called_private():
    """Stored private (nobody joins or spectates it), an attempt's replay is open to anyone
    once its day closes: `private` would send a client for a token it does not need."""
    race = two_players()
    race.sealed = race.private = True
    entry = recent.entries(finished(race))["p1"]
    assert (entry.kind, entry.private) == (recent.DAILY, False)
