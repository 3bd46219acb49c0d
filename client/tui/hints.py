"""Hints in the terminal app: the player-side search's best move.

Offline (``solrace play --offline``) the hint is computed here, from the
player's own view text only: ``protocol.solver.best_move`` rebuilds a game
from what the player sees and never knows the stock's order or a face-down
card, so a hint tells nothing the player could not work out. Nothing is at
stake offline, so hints are always given there.

Online the app asks the server (the `hint` request, docs/protocol.md §3),
which gives hints only in casual solo races and refuses them in rated races,
dailies and races of several players (`hints-forbidden`). The app never
computes a hint itself for an online race: what the server forbids stays
forbidden in the official client.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from protocol.solver import DEFAULT_HINT_NODES, best_move

from .errors import ServerError
from .model import RaceModel
from .offline import LocalSession
from .session import Session


def offline_hint(view_text: str, nodes: int = DEFAULT_HINT_NODES) -> str | None:
    """The best move from a view text (what the player sees), or None when the
    search finds nothing worth playing (the game is stuck)."""
    return best_move(view_text, nodes=nodes)


#: The status line when the search finds no move worth playing.
NO_MOVE = "hint: no move helps any more (declare your game finished)"


def hint_text(move: str | None) -> str:
    if move is None:
        return NO_MOVE
    return f"hint: {move}"


def refusal_text(e: ServerError) -> str:
    """A refused hint as a sentence: ``hint: why`` (client/tui/errors.py's words, or the
    server's), no code."""
    if e.code == "unknown-type":
        return "hint: this server does not give hints"
    return f"hint: {e.describe()}"


async def ask_hint(session: Session, model: RaceModel, asking: Callable[[str], object] | None = None) -> str:
    """A message-line text: the hint for the player's current position, or why
    there is none. The offline search runs in a worker thread (a few ms to a
    few tens of ms) so that the app stays responsive; online, `asking` is told
    first that the server is asked (its search may take seconds)."""
    if model.status != "running" or model.my_status != "playing" or not model.view:
        return "hint: only while your game is running"
    if isinstance(session, LocalSession):
        return hint_text(await asyncio.to_thread(offline_hint, model.view))
    if asking is not None:
        asking("hint: asking the server's search…")
    try:
        reply = await session.request("hint", race=model.race_id)
    except ServerError as e:
        return refusal_text(e)
    move = reply.get("move")
    text = hint_text(move if isinstance(move, str) else None)
    n = reply.get("n")
    if isinstance(n, int) and n != model.n:
        # Moves were played while the server searched: the hint is for an earlier position.
        text += f"  (for your move {n + 1}: you have moved since)"
    return text
