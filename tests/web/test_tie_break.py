"""The result panel says what broke a tie on cards home (words.js `tieBreakNotes`, the
browser's copy of client/tui/text.py `tie_break_notes`): both say the same of one ranking."""

from __future__ import annotations

from client.tui.text import tie_break_notes
from tests.tui.test_board import TIE_RANKING


def test_the_browser_says_what_the_terminal_says(new_page) -> None:
    page = new_page("ada")
    notes = page.evaluate(
        """async (ranking) => (await import("./js/words.js")).tieBreakNotes(ranking)""", TIE_RANKING
    )
    assert notes == tie_break_notes(TIE_RANKING) and len(notes) == 2
