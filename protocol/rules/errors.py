"""Exceptions of the rules engine; codes are stable (clients and logs use them)."""

from __future__ import annotations

#: Every IllegalMove code, with what it means.
ILLEGAL_MOVE_CODES: dict[str, str] = {
    "bad-notation": "not a move in docs/rules.md §1.3 notation (or not its canonical spelling)",
    "no-such-pile": "names a pile this game does not have",
    "same-pile": "source and destination are the same pile",
    "not-available": "the source cannot give these cards (empty, face down, not a run, "
    "or a pile that never gives)",
    "not-accepted": "the destination refuses these cards",
    "stock-empty": "draw with an empty stock",
}


class IllegalMove(Exception):
    """A move the rules refuse. ``code`` is one of ``ILLEGAL_MOVE_CODES``.

    ``index`` is set by ``replay`` to the position of the move in the list.
    """

    def __init__(self, code: str, move: object, message: str, index: int | None = None):
        super().__init__(message)
        self.code = code
        self.move = move
        self.message = message
        self.index = index

    def __str__(self) -> str:
        prefix = f"move {self.index}: " if self.index is not None else ""
        return f"{prefix}illegal move {self.move!r} ({self.code}): {self.message}"


class PositionError(ValueError):
    """A position or view text that is malformed or cannot occur in the game."""
