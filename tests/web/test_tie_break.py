"""The result panel says what broke a tie on cards home (words.js `tieBreakNotes`, the
browser's copy of client/tui/text.py `tie_break_notes`): both say the same of one ranking."""

from __future__ import annotations

from tui.test_board import TIE_RANKING

from client.tui.text import tie_break_notes


def test_the_browser_says_what_the_terminal_says(new_page) -> None:
    page = new_page("ada")
    notes = page.evaluate(
        """async (ranking) => (await import("./js/words.js")).tieBreakNotes(ranking)""", TIE_RANKING
    )
    assert notes == tie_break_notes(TIE_RANKING) and len(notes) == 2


def test_the_result_heading_says_a_win_on_cards_home_is_one(new_page) -> None:
    page = new_page("ada")
    heading = """async ([daily, mine, players]) =>
        (await import("./js/words.js")).resultHeading(daily, mine, players, 104)"""
    assert page.evaluate(heading, [False, {"rank": 1, "won": True, "home": 104}, 2]) == "★ You win the race!"
    stopped = {"rank": 1, "won": False, "home": 17}
    assert page.evaluate(heading, [False, stopped, 2]) == "★ You win the race, with 17/104 cards home"
    # a race of one has no rival: no rank ("#1" with no card home), how the deal went
    assert page.evaluate(heading, [False, stopped, 1]) == "Race over: 17/104 cards home"
    practice = """async ([mine]) => (await import("./js/words.js")).resultHeading(false, mine, 1, 104, false, true)"""
    assert (
        page.evaluate(practice, [{"rank": 1, "won": False, "home": 0}]) == "Practice over: 0/104 cards home"
    )
    assert page.evaluate(practice, [{"rank": 1, "won": True, "home": 104}]) == "All cards home — practice won"
    assert page.evaluate(heading, [False, {"rank": 2, "won": False, "home": 9}, 2]) == "You finished #2"
    assert page.evaluate(heading, [False, None, 2]) == "Race over"
    assert page.evaluate(heading, [True, stopped, 1]) == "Daily attempt over: 17/104 home"
