"""What the race app's status line says when a chosen race does not start, of a move done and
of a race's events, and where to go once it is over; the row of legal moves
(client/tui/race_text.py)."""

from __future__ import annotations

from client.tui.errors import ServerError
from client.tui.intent import Intent
from client.tui.model import RaceModel
from client.tui.race_text import (
    NO_BOT,
    RANKING_KEYS,
    event_text,
    legal_text,
    move_done_text,
    next_text,
    rating_change_text,
    start_refused_text,
)
from client.tui.ratings_text import rated_needs_account


def test_a_refused_start_says_why_and_leads_back_to_the_menu() -> None:
    rated = Intent("quick", game="klondike", rated=True)
    assert start_refused_text(ServerError("not-logged-in", "log in"), rated) == (
        rated_needs_account("klondike", "quick") + " — 'menu' to choose again"
    )
    casual = Intent("quick", game="klondike")
    assert start_refused_text(ServerError("not-logged-in", "log in"), casual) == (
        "log in — type 'menu' to choose again"
    )
    assert start_refused_text(ServerError("no-bots"), Intent("bot", game="klondike")) == (
        f"{NO_BOT} — 'menu' to choose again"
    )
    assert start_refused_text(ServerError("no-such-race", "no such race"), Intent("join", race="r9")) == (
        "cannot join race r9: no such race — 'menu' for another race, ctrl+q to quit"
    )
    # No reply in time to what may have seated the player: not "try again" (a second race)
    for intent in (
        Intent("create", "klondike", 2),
        Intent("practice", "klondike", 1),
        Intent("join", race="r9"),
    ):
        late = start_refused_text(ServerError("timeout", "no reply from the server"), intent)
        assert late.startswith("the server did not answer in time; the race may be there all the same"), late
        assert "try again" not in late and late.endswith("'menu' to choose again"), late
    assert "try again" in start_refused_text(
        ServerError("timeout", "no reply"), Intent("quick", "klondike", 2)
    )
    # a race played for another app (`solrace arena`): no menu, ctrl+q goes back there
    arena = start_refused_text(
        ServerError("no-such-race", "no such race"), Intent("resume", race="r9"), "back to the arena"
    )
    assert arena == "race r9: no such race — ctrl+q goes back to the arena"


def test_once_over_the_way_on_is_the_menu_or_back_to_the_app_the_race_was_for() -> None:
    assert next_text(None) == "'menu' for another race, ctrl+q to quit"
    assert next_text("back to the arena") == "ctrl+q: back to the arena"
    # a rematch may be asked or taken (race_commands.rematch_word): named first
    assert next_text(None, "rematch") == (
        "'rematch' for the same players again, 'menu' for another race, ctrl+q to quit"
    )
    assert next_text(None, "accept") == "'accept' for the rematch, 'menu' for another race, ctrl+q to quit"


def test_a_move_done_says_the_cards_it_turned_and_a_win() -> None:
    assert move_done_text("draw", {"revealed": [], "won": False}) == "draw ✓"
    assert move_done_text("t2>f1", {"revealed": [["t2", "7c"]]}) == "t2>f1 ✓  revealed t2←7♣"
    assert move_done_text("t1>f4", {"won": True}) == "t1>f4 ✓  — YOU WON!"


def test_the_row_of_legal_moves_shows_what_fits_and_says_how_many_more() -> None:
    assert legal_text([]) == "legal: (asking…)"
    assert legal_text(["d", "w>f1"]) == "legal (2): d w>f1"
    many = [f"t{i}>f1" for i in range(41)]
    assert legal_text(many) == f"legal (41): {' '.join(many)}"  # no width: all of them
    row = legal_text(many, width=78)
    assert len(row) <= 78 and row.endswith(" more: type legal")
    shown = row.removeprefix("legal (41): ").partition(" …")[0].split()
    assert shown == many[: len(shown)] and row.endswith(f"… and {41 - len(shown)} more: type legal")
    assert len(legal_text(many, width=78, rows=4)) > len(row)  # a taller box: more of them
    assert legal_text(many, width=78, every=True) == f"legal (41): {' '.join(many)}  ('legal' folds them)"


def test_the_status_line_on_a_race_event() -> None:
    m = RaceModel(me="p1", race_id="r1")
    assert event_text({"t": "end"}, m, None) == f"race over — {RANKING_KEYS}; " + next_text(None)
    assert event_text({"t": "end"}, m, None, "rematch") == (
        f"race over — {RANKING_KEYS}; " + next_text(None, "rematch")
    )
    assert event_text({"t": "race", "status": "countdown"}, m, None) == "countdown…"
    assert event_text({"t": "race", "status": "lobby"}, m, None) is None
    assert event_text({"t": "rating"}, m, None) is None  # nothing taken in: nothing said
    m.rating = {"before": {"rating": 1500}, "after": {"rating": 1516}}
    assert event_text({"t": "rating"}, m, "back to the arena") == (
        f"your {rating_change_text(m.rating)} — ctrl+q: back to the arena"
    )
    assert event_text({"t": "rating"}, m, None, "accept") == (
        f"your {rating_change_text(m.rating)} — " + next_text(None, "accept")
    )


def test_a_rematch_offer_names_who_offers_it_with_their_mark() -> None:
    from client.tui.race_text import menu_offer_text, rematch_offer_text

    offer = {"t": "rematch", "race": "r1", "rematch": "r2", "by": "p2", "name": "bob", "account": True}
    assert rematch_offer_text(offer) == "bob ✓ offers a rematch (race r2): 'accept' takes it"
    assert rematch_offer_text(dict(offer, account=False)).startswith("bob offers a rematch")
    assert rematch_offer_text(dict(offer, by="bot-1", name="Greedy", account=False)).startswith(
        "Greedy [bot] offers"
    )
    assert menu_offer_text(offer) == "bob ✓ offers a rematch of race r1:"  # the race it was left for


def test_a_refused_rematch_says_the_servers_reason_and_a_missing_one_plainly() -> None:
    from client.tui.errors import ServerError
    from client.tui.intent import Intent
    from client.tui.race_text import start_refused_text

    full = start_refused_text(ServerError("race-full", "the race is full"), Intent("accept", race="r2"))
    assert full == "could not join the rematch: the race is full — 'menu' for another race"
    asked = start_refused_text(ServerError("too-many-races", "too many"), Intent("rematch", race="r1"))
    assert asked.startswith("no rematch: too many — ")
    old = start_refused_text(ServerError("unknown-type", "rematch"), Intent("rematch", race="r1"))
    assert old.startswith("rematches need a server that has them")
