"""The result panel says what broke a tie on cards home (words.js `tieBreakNotes`, the
browser's copy of client/tui/text.py `tie_break_notes`): both say the same of one ranking."""

from __future__ import annotations

from client.tui.text import tie_break_notes


def row(rank: int, name: str, home: int, home_at: int | None, moves: int, won: bool = False) -> dict:
    status = "won" if won else "timeout"
    return {
        "rank": rank,
        "player": f"p-{name}",
        "name": name,
        "status": status,
        "won": won,
        "home": home,
        "moves": moves,
        "time_ms": None,
        "home_at_ms": home_at,
    }


RANKING = [
    row(1, "ada", 104, 90_000, 300, won=True),
    row(2, "bob", 60, 61_000, 120),
    row(3, "cy", 60, 75_500, 150),
    row(4, "dee", 40, 20_000, 99),
    row(5, "eve", 40, 20_000, 80),
    row(5, "fay", 40, 20_000, 80),
]


def test_the_browser_says_what_the_terminal_says(new_page) -> None:
    page = new_page("ada")
    notes = page.evaluate(
        """async (ranking) => (await import("./js/words.js")).tieBreakNotes(ranking)""", RANKING
    )
    assert notes == tie_break_notes(RANKING) and len(notes) == 2
