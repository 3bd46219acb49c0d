"""The text of `solrace play`'s "Your races" screen, of a rated race in the race screen,
and the command line's new flags (--rated, --logout-all, --password): plain functions of
the wire dicts and of the parsed arguments (docs/protocol.md §9), no terminal, no socket."""

from __future__ import annotations

import argparse

import pytest

from client.cli import play
from client.tui.intent import Intent
from client.tui.model import RaceModel
from client.tui.net import write_token
from client.tui.race_text import RATING_PENDING, lobby_text, rating_change_text, result_text
from client.tui.ratings_text import change_text, rated_needs_account
from client.tui.recent_text import (
    COLUMNS,
    GUEST_NOTE,
    detail_text,
    place_text,
    rating_cell,
    recent_row,
    title_text,
    utc_date,
    when_text,
)

MIN = 60_000
HOUR = 60 * MIN
DAY = 24 * HOUR
NOW = 1_764_547_200_000 + 12 * HOUR  # 2025-12-01 12:00 UTC
URL = "ws://127.0.0.1:8765/ws"


def rating(r: int, races: int, provisional: bool = True) -> dict:
    return {"rating": r, "mu": 25.0, "sigma": 8.0, "races": races, "provisional": provisional}


def recent(**kw) -> dict:
    e = {
        "race": "r8a1c",
        "game": "fours-up",
        "kind": "quick",
        "at": NOW - 5 * MIN,
        "rank": 1,
        "players": 2,
        "status": "won",
        "home": 104,
        "total": 104,
        "moves": 180,
        "time_ms": 201_400,
        "rated": False,
    }
    return e | kw


# --- Your races ----------------------------------------------------------------------------


def test_when_a_race_ended() -> None:
    assert when_text(NOW - 20_000, NOW) == "just now"
    assert when_text(NOW - 12 * MIN, NOW) == "12 min ago"
    assert when_text(NOW - 3 * HOUR - 5 * MIN, NOW) == "3 h ago"
    assert when_text(NOW - 2 * DAY, NOW) == "2 d ago"
    assert when_text(NOW - 40 * DAY, NOW) == "2025-10-22"
    assert when_text(NOW + 5_000, NOW) == "just now"  # the server's clock a little ahead
    assert when_text(None, NOW) == "?"


def test_a_row_per_race() -> None:
    # the cards home and the moves are in the details (test_the_details_name_the_race...)
    assert COLUMNS == ("when", "game", "kind", "place", "result", "time", "rating")
    assert recent_row(recent(), NOW) == ("5 min ago", "Fours Up", "quick", "1 of 2", "won", "3:21.4", "")
    row = recent_row(recent(kind="daily", players=1, status="finished", home=40, time_ms=300_000), NOW)
    assert row[2:6] == ("daily", "solo", "finished", "5:00.0")
    row = recent_row(recent(kind="bot", rank=2, players=3, status="timeout", time_ms=None), NOW)
    assert row[2:5] == ("vs bot", "2 of 3", "time up") and row[5] == "—"
    assert place_text(recent(rank=1, players=1)) == "solo"
    # a private race of one seat is what "Practice alone" makes; of several, a private race
    assert recent_row(recent(kind="private", players=1), NOW)[2] == "practice"
    assert recent_row(recent(kind="private", players=3), NOW)[2] == "private"


def test_the_rating_of_a_rated_race() -> None:
    assert rating_cell(recent()) == ""  # casual
    assert rating_cell(recent(rated=True)) == "pending"  # not rated yet
    rated = recent(rated=True, before=rating(1000, 0), after=rating(1016, 1))
    assert rating_cell(rated) == "+16"  # the change; the details say "1000? → 1016? (+16)"
    assert recent_row(rated, NOW)[2] == "quick" and recent_row(rated, NOW)[6] == "+16"
    lost = recent(rated=True, before=rating(1210, 12, False), after=rating(1195, 13, False))
    assert rating_cell(lost) == "-15"
    assert "rating 1210 → 1195 (-15)" in str(detail_text(lost, None, NOW))


def test_the_title_says_how_long_a_guest_list_lasts() -> None:
    assert title_text([], logged_in=True) == "[b]Your races[/b] — newest first"
    assert title_text([recent(), recent()], logged_in=True).endswith("· 2 races")
    assert title_text([recent()], logged_in=False).endswith(f"1 race · {GUEST_NOTE}")


def test_the_details_name_the_race_and_how_to_check_it() -> None:
    text = detail_text(recent(), URL, NOW).plain
    lines = text.splitlines()
    assert lines[0] == "race r8a1c · Fours Up · quick match"
    assert lines[1] == "place 1 of 2 · won at 3:21.4 · 104/104 cards home · 180 moves · ended 5 min ago"
    # each command on a row of its own; the default server (URL) is the commands' own default
    assert "\nsolrace verify --race r8a1c\n" in text
    assert "\nsolrace analyze --race r8a1c" in text
    elsewhere = detail_text(recent(), "ws://h:1/ws", NOW).plain
    assert "\nsolrace verify --url ws://h:1/ws --race r8a1c\n" in elsewhere
    assert "sealed" not in text and "private" not in text

    rated = detail_text(recent(rated=True, before=rating(1000, 0), after=rating(1016, 1)), URL, NOW).plain
    assert "rating 1000? → 1016? (+16)" in rated and "quick match · rated" in rated
    assert "rating: not updated yet" in detail_text(recent(rated=True), URL, NOW).plain

    arena = detail_text(recent(kind="arena", arena="hourly-fours-up"), None, NOW).plain
    assert arena.startswith("race r8a1c · Fours Up · arena hourly-fours-up")
    assert "solrace verify --url ws://HOST:PORT/ws --race r8a1c" in arena  # no URL known

    # A daily attempt of today: its moves are sealed until the day closes; yesterday's are not.
    today = detail_text(recent(kind="daily", players=1, time_ms=None, status="timeout"), URL, NOW).plain
    assert "solo · time up · " in today and "sealed until the day closes (00:00 UTC)" in today
    assert "--race r8a1c" in today and "Enter views it here" not in today  # Enter is refused until then
    yesterday = detail_text(recent(kind="daily", players=1, at=NOW - DAY), URL, NOW).plain
    assert "sealed" not in yesterday and "--race r8a1c" in yesterday and "Enter views it here" in yesterday
    # yesterday's attempt cut to the close ended today: its `date` says it is closed
    at_close = detail_text(recent(kind="daily", players=1, at=NOW, date=utc_date(NOW - DAY)), URL, NOW).plain
    assert "sealed" not in at_close

    # A private race: replayed by its players only, so the commands ask as you.
    private = detail_text(recent(kind="private"), URL, NOW).plain
    assert "solrace verify --race r8a1c --token-file" in private
    assert "solrace analyze --race r8a1c --token-file" in private
    # a private race with a bot is of kind `bot`: its `private` flag says it; a token file that
    # is not the default one is named
    with_bot = detail_text(recent(kind="bot", private=True), URL, NOW, "/x/tok").plain
    assert "solrace verify --race r8a1c --token-file /x/tok" in with_bot
    public = detail_text(recent(kind="bot"), URL, NOW, "/x/tok").plain
    assert "--token-file" not in public


# --- a rated race in the race screen --------------------------------------------------------


def test_a_rated_race_is_marked_and_its_rating_change_shown() -> None:
    m = RaceModel(me="p1")
    m.apply({"t": "queued", "game": "fours-up", "seats": 2, "rated": True})
    assert m.rated and lobby_text(m, URL).startswith("Rated quick match: waiting for rivals of close rating")
    m.apply(
        {
            "t": "race",
            "race": "r1",
            "ver": 1,
            "game": "fours-up",
            "status": "countdown",
            "private": False,
            "seats": 2,
            "time_limit_s": 600,
            "host": "",
            "players": [{"player": "p1", "name": "ada"}, {"player": "p2", "name": "bob"}],
            "rated": True,
        }
    )
    assert "· rated" in lobby_text(m, URL).splitlines()[1]
    ranking = [
        {"rank": 1, "player": "p1", "name": "ada", "status": "finished", "home": 5, "moves": 3},
        {"rank": 2, "player": "p2", "name": "bob", "status": "finished", "home": 4, "moves": 0},
    ]
    m.apply({"t": "end", "race": "r1", "ver": 2, "seed": "s", "ranking": ranking})
    text = result_text(m).plain
    assert text.startswith("Final ranking · rated") and RATING_PENDING in text

    change = {"player": "p1", "name": "ada", "rank": 1, "weight": 1.0}
    change |= {"before": rating(1000, 0), "after": rating(1016, 1)}
    other = change | {"player": "p2", "name": "bob", "rank": 2, "after": rating(984, 1)}
    m.apply({"t": "rating", "race": "other-race", "game": "fours-up", "players": [other]})
    assert m.rating is None  # another race's
    m.apply({"t": "rating", "race": "r1", "game": "fours-up", "players": [other, change]})
    assert m.rating == change
    text = result_text(m).plain
    assert "rating 1000? → 1016? (+16)" in text and RATING_PENDING not in text
    assert rating_change_text(change | {"weight": 0.5}).endswith("this race counted 50% (repeated pairing)")
    assert change_text(rating(1210, 12, False), rating(1195, 13, False)) == "1210 → 1195 (-15)"


def test_a_casual_race_says_nothing_of_ratings() -> None:
    m = RaceModel(me="p1")
    m.apply({"t": "race", "race": "r1", "ver": 1, "game": "fours-up", "status": "lobby", "seats": 2})
    assert not m.rated and "rated" not in lobby_text(m, URL)
    m.apply({"t": "end", "race": "r1", "ver": 2, "seed": "s", "ranking": []})
    assert "rat" not in result_text(m).plain


# --- the command line -------------------------------------------------------------------------


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    play.add_arguments(parser)
    return parser.parse_args(list(argv))


def test_the_rated_flag() -> None:
    assert play.intent_from_args(parse("--game", "fours-up", "--quick", "--rated")) == Intent(
        "quick", "fours-up", 2, rated=True
    )
    assert play.intent_from_args(
        parse("--game", "fours-up", "--create", "--seats", "3", "--rated")
    ) == Intent("create", "fours-up", 3, rated=True)
    unrated = play.intent_from_args(parse("--game", "fours-up", "--quick"))
    assert unrated is not None and not unrated.rated
    with pytest.raises(SystemExit, match="--rated goes with --quick or --create"):
        play.intent_from_args(parse("--rated"))
    with pytest.raises(SystemExit, match="--rated goes with"):
        play.intent_from_args(parse("--rated", "--join", "r1"))
    with pytest.raises(SystemExit, match="2 seats or more"):
        play.intent_from_args(parse("--game", "fours-up", "--create", "--seats", "1", "--rated"))
    with pytest.raises(SystemExit, match="server's clock"):
        play.intent_from_args(parse("--game", "fours-up", "--create", "--time-limit", "60", "--rated"))
    with pytest.raises(SystemExit, match="not rated"):
        play.build_app(parse("--game", "fours-up", "--quick", "--rated", "--offline"))


def test_a_guest_asking_for_a_rated_race_is_told_how_to_log_in(tmp_path, capsys) -> None:
    path = tmp_path / "token"
    argv = ("--game", "fours-up", "--quick", "--rated", "--token-file", str(path))
    said = play.rated_step(parse(*argv))  # no token file: a new guest would play
    assert said == rated_needs_account("fours-up", "quick")
    assert "solrace play --login NAME --game fours-up --quick --rated" in said and "--claim NAME" in said
    write_token(path, "guesttoken")
    assert play.rated_step(parse(*argv)) == said
    # `solrace play` stops there, with that sentence, before connecting anywhere
    assert play.run(parse(*argv, "--url", "ws://127.0.0.1:9/ws")) == 1
    assert capsys.readouterr().err.strip() == f"solrace play: {said}"
    write_token(path, "p1.secret")  # an account's token: on to the race
    assert play.rated_step(parse(*argv)) is None
    assert (
        play.rated_step(parse("--game", "fours-up", "--quick", "--token-file", str(tmp_path / "x"))) is None
    )


def test_the_new_account_flags_exclude_each_other() -> None:
    for a, b in (("--logout-all", "--password"), ("--password", "--logout"), ("--logout-all", "--login=ada")):
        with pytest.raises(SystemExit):
            parse(a, b)
    with pytest.raises(SystemExit, match="offline"):
        play.account_step(parse("--password", "--offline"), lambda prompt: "x", print)


def test_a_password_change_needs_a_login_before_any_password_is_asked(tmp_path, capsys) -> None:
    path = tmp_path / "token"
    write_token(path, "guesttoken")
    asked: list[str] = []

    def ask(prompt: str) -> str:
        asked.append(prompt)
        return "a password"

    url = "ws://127.0.0.1:9/ws"  # never reached
    for flag in ("--password", "--logout-all"):
        status = play.account_step(parse(flag, "--url", url, "--token-file", str(path)), ask, print)
        assert status == 1 and asked == []
        err = capsys.readouterr().err.strip()
        assert "this terminal is not logged in" in err and "solrace play --login NAME" in err, err
