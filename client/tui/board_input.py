"""Clicks and keys on the terminal's board turned into moves: plain functions over the board
(board.py) and the legal moves the server sent, no terminal."""

from __future__ import annotations

from dataclasses import dataclass

from protocol.rules.games import GAMES

from .board import Board


def runs_allowed(game_id: str, pile: str) -> bool:
    """May a run of cards move together from ``pile`` (a building tableau)?"""
    game = GAMES.get(game_id)
    i = game.index.get(pile) if game is not None else None
    return game is not None and i is not None and game.runs[i]


@dataclass(frozen=True)
class ClickResult:
    selected: tuple[str, int] | None
    move: str | None = None
    note: str | None = None


def move_notation(src: str, k: int, dst: str) -> str:
    return f"{src}>{dst}" if k == 1 else f"{src}:{k}>{dst}"


def click(
    board: Board,
    selected: tuple[str, int] | None,
    pile: str,
    index: int | None,
    legal: list[str] | tuple[str, ...] = (),
) -> ClickResult:
    """One click on (pile, card index) given the current selection.

    * Clicking the stock draws (``draw``), and clears any selection.
    * With nothing selected, clicking a face-up card selects its pile's top
      card, or — on a building tableau (Rouge et Noir, Fours Up) — the run from
      the clicked card to the top (``t2`` clicked 3 from the top → ``t2:3``).
    * With a selection, clicking another pile moves there; clicking the
      selected pile again reselects (a different depth) or deselects.
    * Given the ``legal`` moves, a card that has none is not selected: kept, the
      selection would only send the next click's move to be refused.
    """
    if pile == "s":
        return ClickResult(None, "draw")
    cards = board.cards(pile)
    if selected is not None and selected[0] != pile:
        src, k = selected
        return ClickResult(None, move_notation(src, k, pile))
    # select / reselect / deselect on this pile
    if not cards:
        return ClickResult(None, None, None if selected else f"{pile} is empty")
    k = 1
    if index is not None and runs_allowed(board.game, pile) and 0 <= index < len(cards):
        if cards[index] is None:
            return ClickResult(selected, None, "face-down cards never move")
        k = len(cards) - index
    if cards[-1] is None:
        return ClickResult(None, None, "face-down cards never move")
    if selected == (pile, k):
        return ClickResult(None)
    if legal and not targets_for(legal, (pile, k)):
        return ClickResult(None, None, f"{pile}{f':{k}' if k > 1 else ''}: no legal move from here")
    return ClickResult((pile, k))


def home_move(legal: list[str] | tuple[str, ...], pile: str) -> str | None:
    """The move a double click on ``pile`` makes: its top card to a foundation, if legal."""
    if pile.startswith("f"):
        return None
    return next((m for m in legal if m.startswith(pile + ">f")), None)


def targets_for(legal: list[str] | tuple[str, ...], selected: tuple[str, int] | None) -> frozenset[str]:
    """Destinations of the legal moves from the selected source (for highlighting)."""
    if not selected:
        return frozenset()
    prefix = move_notation(selected[0], selected[1], "")
    return frozenset(m[len(prefix) :] for m in legal if m.startswith(prefix))


def complete(legal: list[str] | tuple[str, ...], prefix: str, after: str | None = None) -> str | None:
    """Tab completion: the next legal move starting with ``prefix`` after ``after``."""
    matches = [m for m in legal if m.startswith(prefix)]
    if not matches:
        return None
    if after in matches:
        return matches[(matches.index(after) + 1) % len(matches)]
    return matches[0]
