"""What the race app's status line says when a chosen race does not start, and where to go
once it is over (client/tui/race_text.py)."""

from __future__ import annotations

from client.tui.intent import Intent
from client.tui.race_text import NO_BOT, next_text, start_refused_text
from client.tui.ratings_text import rated_needs_account
from client.tui.session import ServerError


def test_a_refused_start_says_why_and_leads_back_to_the_menu() -> None:
    rated = Intent("quick", game="klondike", rated=True)
    assert start_refused_text(ServerError("not-logged-in", "log in"), rated) == (
        rated_needs_account("klondike", "quick") + " — 'menu' to choose again"
    )
    casual = Intent("quick", game="klondike")
    assert start_refused_text(ServerError("not-logged-in", "log in"), casual) == (
        "log in (not-logged-in) — type 'menu' to choose again"
    )
    assert start_refused_text(ServerError("no-bots"), Intent("bot", game="klondike")) == (
        f"{NO_BOT} — 'menu' to choose again"
    )
    assert start_refused_text(ServerError("no-such-race", "no race r9"), Intent("join", race="r9")) == (
        "no race r9 (no-such-race) — type 'menu' to choose again"
    )


def test_once_over_the_way_on_is_the_menu_or_back_to_the_app_the_race_was_for() -> None:
    assert next_text(None) == "'menu' for another race, ctrl+q to quit"
    assert next_text("back to the arena") == "ctrl+q: back to the arena"
