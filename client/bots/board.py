"""The bot's own board: a Game rebuilt from what the player sees, and nothing else.

A bot may only use what its player sees (docs/rules.md §7.3): the face-up cards and
the stock's count. Strategies therefore never touch the real Game. They get a
``View`` and rebuild a *visible game* from it with ``visible_game``: the
visible cards are where the view says, and every hidden slot (face-down
tableau cards, the stock) is filled with *filler* cards taken from the cards
the player has not seen, in canonical order. The filler is a function of the
view alone, so whatever a strategy computes on a visible game is a function
of the view alone: it cannot peek at the real stock or face-down order, by
construction. The filler is also not a guess: strategies treat any move that
would reveal a hidden card (``draw``, a Racing Aces refill, a Rouge et Noir
flip) as a chance event and never read the card it turns up.

The engine's legality depends only on visible facts (face-down cards never
move, the stock only matters by whether it is empty), so the visible game has
exactly the legal moves of the real one; tests/bots checks that.
"""

from __future__ import annotations

from protocol import rules
from protocol.rules.engine import Game

# One definition for the bots and the hints (the solver's player search).
from protocol.solver.player import visible_game as visible_game

#: What the player sees of a position, hashable (see visible_key).
Key = tuple[object, ...]


def as_view(position: rules.View | Game | str) -> rules.View:
    """A View from a View, a Game (its player's view) or a view text."""
    if isinstance(position, rules.View):
        return position
    if isinstance(position, Game):
        return position.view()
    if isinstance(position, str):
        return rules.view_from_text(position)
    raise TypeError(f"not a position: {type(position).__name__}")


def visible_key(g: Game) -> Key:
    """A hashable key of what the player sees of ``g``.

    Two positions with the same key look the same to the player; the bots use
    it to never return to a position and for their transposition tables. The
    stock enters by its count only. Face-down cards enter as they are: in a
    visible game they are filler, and the filler is a function of the view
    (the unseen cards in canonical order), also after moves that reveal
    nothing, since those leave the unseen set as it was.
    """
    s = g.game.stock_idx
    piles = g.piles
    key = [*map(tuple, piles[:s]), len(piles[s]), *map(tuple, piles[s + 1 :])]
    if g.game.face_down:
        key.append(tuple(g.down))
    return tuple(key)


def unseen_counts(g: Game) -> list[int]:
    """How many copies of each face (0..51) the player has not seen in ``g``:
    every face ``decks`` times, minus the face-up cards. Read from face-up
    cards only (never a face-down card or the stock), so it is a function of
    the view. The cards a ``draw`` or flip turns up are drawn from this
    multiset: without more information every order of it is equally likely."""
    gdef = g.game
    unseen = [gdef.decks] * 52
    for i, p in enumerate(g.piles):
        if i == gdef.stock_idx:
            continue
        for f in p[g.down[i] :]:
            unseen[f] -= 1
    return [max(n, 0) for n in unseen]
