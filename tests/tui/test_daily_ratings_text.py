"""The text of the daily challenge, ratings and account parts of `solrace play`: plain
functions of the wire dicts (docs/protocol.md §5, §9), no terminal, no socket."""

from __future__ import annotations

from client.tui.account import error_text
from client.tui.daily_text import (
    closes_text,
    daily_row,
    entry_result,
    in_progress,
    leaderboard_text,
    streak_cell,
    you_cell,
)
from client.tui.errors import retry_text
from client.tui.menu import identity_text
from client.tui.ratings_text import (
    GUEST_TEXT,
    PROVISIONAL_RACES,
    board_pending_text,
    board_text,
    game_rating_line,
    profile_text,
    races_to_go,
    rating_text,
    standing_line,
)

DAY = 86_400_000


def entry(rank: int, player: str, name: str, *, won: bool = False, home: int = 40, **kw) -> dict:
    e = {
        "rank": rank,
        "player": player,
        "name": name,
        "status": "won" if won else "finished",
        "won": won,
        "home": 104 if won else home,
        "total": 104,
        "moves": 120,
        "time_ms": 201_400 if won else 300_000,
        "home_at_ms": None,
        "last_move_ms": 290_000,
        "race": f"r-{player}",
    }
    return e | kw


def daily(you: dict | None = None, **kw) -> dict:
    return {
        "t": "daily",
        "game": "fours-up",
        "date": "2025-03-14",
        "status": "open",
        "opens": 0,
        "closes": DAY,
        "commitment": "5d0",
        "seed": None,
        "time_limit_s": 600,
        "total": 104,
        "entries": 41,
        "final": False,
        "rules_version": 1,
        "deal_version": 1,
        "you": you,
    } | kw


# -- the daily challenge ---------------------------------------------------------------


def test_a_daily_row_not_played_yet() -> None:
    cells = daily_row("fours-up", daily(certified=True), None)
    assert cells == ("Fours Up", "41 played, winnable", "not played yet", "—")
    assert daily_row("fours-up", daily(status="closed", entries=1), None)[1] == "closed, 1 played"
    assert (
        closes_text(daily(), DAY - 3_600_000)
        == "today's dailies close in 1:00:00 (midnight UTC) · 10:00 per attempt"
    )
    assert closes_text(daily(status="closed"), DAY) == "today's dailies are closed"


def test_a_daily_row_played_shows_the_result_place_and_streak() -> None:
    mine = entry(3, "p1", "ada", won=True)
    cells = daily_row(
        "fours-up",
        daily({"race": "r1", "status": "done", "entry": mine}),
        {"streak": 4, "best_streak": 7},
    )
    assert cells[2] == "won in 3:21.4 · #3 of 41"
    assert cells[3] == "4 days (best 7)"
    lost = entry(18, "p1", "ada", home=97)
    assert you_cell(daily({"race": "r1", "status": "done", "entry": lost})) == "97/104 home · #18 of 41"
    playing = daily({"race": "r1", "status": "playing", "entry": None})
    assert you_cell(playing) == "in progress" and in_progress(playing)
    assert not in_progress(daily()) and not in_progress(
        daily({"race": "r1", "status": "done", "entry": lost})
    )


def test_streaks_and_an_unavailable_day() -> None:
    assert streak_cell({"streak": 1, "best_streak": 1}) == "1 day"
    assert streak_cell({"streak": 0, "best_streak": 5}) == "none (best 5)"
    assert streak_cell({"streak": 0, "best_streak": 0}) == "—"
    assert daily_row("racing-aces", None, None) == ("Racing Aces", "unavailable", "—", "—")
    assert entry_result(entry(1, "p", "x", won=True)) == "won in 3:21.4"


def test_a_leaderboard_with_you_below_the_top() -> None:
    top = [entry(1, "p2", "bob", won=True), entry(2, "p3", "cy", won=True)]
    around = [entry(17, "p4", "dee"), entry(18, "p1", "ada", home=30), entry(19, "p5", "eve", home=20)]
    board = {
        "game": "fours-up",
        "date": "2025-03-14",
        "status": "open",
        "final": False,
        "count": 42,
        "top": top,
        "around": around,
        "me": around[1],
    }
    text = leaderboard_text(board, "p1")
    plain = text.plain
    assert plain.startswith("Fours Up · daily of 2025-03-14 · open · 42 attempts\n")
    lines = plain.splitlines()
    assert lines[1].lstrip().startswith("1. bob") and lines[2].lstrip().startswith("2. cy")
    assert lines[3].strip() == "…"
    mine = [line for line in lines if line.startswith("* ")]
    assert len(mine) == 1 and "ada" in mine[0] and "18." in mine[0]
    assert lines[-1] == "your place: #18 of 42 — 30/104 home, stopped at 5:00.0"
    bold = [s for s in text.spans if "bold green" in str(s.style)]
    assert len(bold) == 1 and "ada" in plain[bold[0].start : bold[0].end]


def test_a_leaderboard_without_you_and_a_closed_day() -> None:
    empty = {"game": "racing-aces", "date": "2025-03-14", "status": "open", "count": 0, "top": [], "me": None}
    plain = leaderboard_text(empty, "p1").plain
    assert "nobody has finished an attempt yet" in plain
    assert plain.endswith("you have no finished attempt on this board")
    closed = empty | {"status": "closed", "final": True, "count": 1, "top": [entry(1, "p2", "bob")]}
    plain = leaderboard_text(closed, "p1").plain
    assert "· final ·" in plain and "1 attempt\n" in plain
    assert "solrace verify --daily racing-aces --date 2025-03-14" in plain


# -- ratings ------------------------------------------------------------------------------


def rating(value: int, races: int) -> dict:
    return {
        "rating": value,
        "mu": 25.0,
        "sigma": 8.0,
        "races": races,
        "provisional": races < PROVISIONAL_RACES,
    }


def test_the_provisional_marker_as_the_browser_shows_it() -> None:
    assert rating_text(rating(1032, 3)) == "1032?"
    assert rating_text(rating(1480, 12)) == "1480"
    assert races_to_go(rating(1032, 3)) == 7
    assert races_to_go(rating(1032, 9)) == 1
    assert races_to_go(rating(1000, 0)) == 10


def words(line: str) -> str:
    return " ".join(line.split())


def test_profile_lines_per_game() -> None:
    played = {"game": "fours-up", "rating": rating(1032, 3), "history": [{}]}
    line = game_rating_line(played)
    assert words(line) == "Fours Up: 1032? 3 rated races · provisional: 7 more rated races to go"
    one_to_go = {"game": "fours-up", "rating": rating(1100, 9), "history": [{}]}
    assert game_rating_line(one_to_go).endswith("provisional: 1 more rated race to go")
    established = {"game": "racing-aces", "rating": rating(1480, 12), "history": [{}]}
    assert words(game_rating_line(established)) == "Racing Aces: 1480 12 rated races"
    # the ratings line up in one column whatever the game's name
    assert game_rating_line(established).index("1480") == line.index("1032")
    never = {"game": "rouge-et-noir", "rating": rating(1000, 0), "history": []}
    assert words(game_rating_line(never)) == "Rouge et Noir: not played rated yet · starts at 1000?"


def test_a_profile_lists_played_games_first_and_the_latest_rated_races() -> None:
    race = {
        "race": "r9",
        "game": "fours-up",
        "at": 0,
        "rank": 1,
        "players": 2,
        "weight": 1.0,
        "before": rating(1000, 2),
        "after": rating(1032, 3),
    }
    profile = {
        "name": "ada",
        "ratings": [
            {"game": "racing-aces", "rating": rating(1000, 0), "history": []},
            {"game": "fours-up", "rating": rating(1032, 3), "history": [race]},
        ],
        "races": [race],
    }
    plain = profile_text(profile).plain
    lines = plain.splitlines()
    assert lines[0] == "ada — ratings"
    assert "Fours Up" in lines[1] and "Racing Aces" in lines[2]
    assert "1 of 2  1000? → 1032? (+32)" in plain
    assert "A ? after a rating means provisional" in plain
    assert "no rated race yet" in profile_text(profile | {"races": []}).plain


def test_where_you_stand_on_a_rating_board() -> None:
    board = {"game": "fours-up", "count": 5, "top": [], "around": [], "me": None}
    assert standing_line(board, None, logged_in=False).startswith("you: a guest")
    provisional = {"game": "fours-up", "rating": rating(1032, 3), "history": [{}]}
    assert standing_line(board, provisional, logged_in=True) == (
        "you: 1032?, provisional — 7 more rated races to be on the board (3 of 10 so far)"
    )
    never = {"game": "fours-up", "rating": rating(1000, 0), "history": []}
    assert standing_line(board, never, logged_in=True).startswith("you: no rated Fours Up race yet")
    me = {"rank": 2, "player": "p1", "name": "ada", "rating": 1480, "mu": 30.0, "sigma": 2.0, "races": 12}
    assert standing_line(board | {"me": me}, None, True) == "you: #2 of 5 · rating 1480 · 12 rated races"


def test_a_rating_board_marks_your_line_and_shows_around_you() -> None:
    def e(rank: int, pid: str, name: str, value: int) -> dict:
        return {"rank": rank, "player": pid, "name": name, "rating": value, "mu": 0, "sigma": 0, "races": 11}

    me = e(30, "p1", "ada", 1400)
    board = {
        "game": "fours-up",
        "count": 40,
        "top": [e(1, "p2", "bob", 1900), e(2, "p3", "cy", 1850)],
        "around": [e(29, "p4", "dee", 1401), me],
        "me": me,
    }
    text = board_text(board, None, True, "p1")
    lines = text.plain.splitlines()
    assert lines[0] == "Fours Up ratings · 40 rated players"
    assert lines[1] == "you: #30 of 40 · rating 1400 · 11 rated races"
    assert lines[2].startswith("   1. bob") and "1900" in lines[2]
    assert lines[4].strip() == "…"
    assert lines[6].startswith("* 30. ada")
    assert lines[-1] == "a rating shows here after 10 rated races"
    empty = board_text({"game": "fours-up", "count": 0, "top": [], "around": [], "me": None}).plain
    assert "no established Fours Up rating yet" in empty


def test_a_board_not_yet_had_is_headed_by_its_game() -> None:
    # Not the last game's board under the new choice, and not its heading either.
    assert board_pending_text("fours-up", "loading…").plain == "Fours Up rating board: loading…"
    assert "Fours Up ratings" not in board_pending_text("fours-up", "loading…").plain


# -- accounts -------------------------------------------------------------------------------


def test_account_errors_read_as_sentences() -> None:
    assert error_text("bad-login", "unknown name or wrong password") == "unknown name or wrong password"
    assert error_text("login-limited", "too many login attempts", 290_000) == (
        "too many login attempts for this name or from this address: try again in 4 min 50 s"
    )
    assert error_text("rate-limited", "", None) == "too many requests: try again later"
    # the server's message names the rule broken: said once, not twice
    assert (
        error_text("bad-password", "a password has 8 to 256 characters")
        == "a password has 8 to 256 characters"
    )
    assert (
        error_text("bad-password", "")
        == "passwords are 8 to 256 characters, not only spaces, and not the name"
    )
    # a name's rule too, once ("a name has letters, digits…" was followed by "(names are 3 to 20
    # letters, digits…)", and "a name has 3 to 20 characters" by "(names are 3 to 20…)")
    for broken in (
        "a name has letters, digits, '_' and '-', and starts with a letter or a digit",
        "a name has 3 to 20 characters",
        "this name is reserved",
    ):
        assert error_text("bad-name", broken) == broken
    assert (
        error_text("bad-name", "")
        == "names are 3 to 20 letters, digits, _ or -, starting with a letter or a digit"
    )
    assert error_text("name-taken", "this name is taken") == "that name is taken by another account"
    assert error_text("internal", "oops") == "oops"  # the server's sentence, no code
    assert [retry_text(ms) for ms in (1, 30_000, 60_000, 300_000, 61_500)] == [
        "1 s",
        "30 s",
        "1 min",
        "5 min",
        "1 min 2 s",
    ]


def test_the_menu_says_who_you_play_as() -> None:
    assert identity_text("ada", True) == "You: [b]ada[/b] (account) · to log out: solrace play --logout"
    guest = identity_text("player-1a2b", False)
    # each command whole on a row (tests/tui/test_menu_commands_whole.py)
    assert guest.splitlines() == [
        "You: [b]player-1a2b[/b] (guest) · your account: solrace play --login NAME",
        "to keep this guest as an account: solrace play --claim NAME",
    ]
    assert identity_text("a-name-of-twenty-four-c", False).splitlines()[1] == (
        "your account: solrace play --login NAME"
    )
    assert "(guest)" in guest and "--login NAME" in guest and "--claim NAME" in guest
    assert "--claim NAME" in GUEST_TEXT and "--login NAME" in GUEST_TEXT
