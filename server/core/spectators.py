"""Spectator boards: sampled every SPECTATOR_FLUSH, shown SPECTATOR_DELAY late (docs/protocol.md §4, `spectate`).

Sans-I/O: every flush the asyncio layer asks `begin_sample` (positions
changed since the last read began, or no sample kept yet); if so it reads the
positions and hands them to `add_sample` (or, if the read failed, calls
`sample_failed`); then `due_boards` says which
sample, if any, is newly old enough to show. Spectators thus see every
board `delay` ms after it was played, never sooner, and never the same
sample twice.

No spectator sees a card that a rival still playing has not seen. Every
player has the same deal: a player who watched their own race from a
second identity would otherwise read, on a rival's board, the stock cards
they have not drawn yet (and the delay does not help: the stock's order is
fixed for the whole race). So `spectator_boards` shows a face-up card of
one player's board only if every other player still playing has had that
card face up too (counted per face: two-deck games hold two of each, and
a copy in the place where the rival's own board shows it counts first);
the others are sent as `??`, like a face-down card. What a player has
seen is what their sampled boards showed face up, so it starts when the
first spectator does and may count less than they saw (a card drawn and
redealt between two samples): it hides more, never less.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from protocol.rules import Game
from protocol.rules.cards import CODE
from protocol.rules.view import HIDDEN

from .room import Room

Boards = list[Any]  # the boards of one sample (BoardView messages)


def begin_sample(room: Room[Any]) -> bool:
    """Whether to read the positions now. The change flag is cleared as the read begins, not
    when it ends: a move made during the read (which may have missed it) asks for another."""
    if room.dirty or not room.samples:
        room.dirty = False
        return True
    return False


def sample_failed(room: Room[Any]) -> None:
    room.dirty = True  # the changes not read yet are still to read


def add_sample(room: Room[Any], now: int, boards: Boards) -> None:
    room.samples.append((now, boards))


def due_boards(room: Room[Any], now: int, delay_ms: int) -> tuple[int, Boards] | None:
    """The newest sample at least `delay_ms` old, if it was not shown yet: (taken at, boards)."""
    cutoff = now - delay_ms
    due = None
    samples = room.samples
    while samples and samples[0][0] <= cutoff:
        due = samples.popleft()
    if due is None:
        return None
    samples.appendleft(due)  # still the latest due sample until a newer one is due
    if room.boards_at == due[0]:
        return None
    room.boards_at = due[0]
    return due


def face_up(game: Game) -> Counter[int]:
    """The faces showing on a board (the stock is face down), with how many of each."""
    stock = game.game.stock_idx
    return Counter(f for i, p in enumerate(game.piles) if i != stock for f in p[game.down[i] :])


def spectator_boards(
    seen: dict[str, Counter[int]], boards: list[tuple[str, int, Game, bool]]
) -> list[tuple[str, int, str]]:
    """The view texts spectators may see of `boards` (player, n, game, still playing): each
    card a rival still playing has not seen is `??` (module doc). `seen` (player -> the most
    copies of each face they had face up at once) is updated from these boards first."""
    for pid, _n, game, _playing in boards:
        known = seen.setdefault(pid, Counter())
        for f, k in face_up(game).items():
            if k > known[f]:
                known[f] = k
    playing = [(pid, game) for pid, _n, game, still in boards if still]
    out = []
    for pid, n, game, _still in boards:
        shown: set[tuple[int, int]] | None = None
        for rival, theirs in playing:
            if rival != pid:
                mine = shown_to(game, seen[rival], theirs)
                shown = mine if shown is None else shown & mine
        out.append((pid, n, game.view_text() if shown is None else board_text(game, shown)))
    return out


def shown_to(game: Game, seen: Counter[int], board: Game) -> set[tuple[int, int]]:
    """The (pile, index) of the face-up cards of `game` a rival who has seen `seen` and now
    sees `board` may be shown: as many copies of each face as they have seen, first those
    where their own board shows that face in the same place (the same card of the deal, so a
    copy shown elsewhere says nothing of where it came from), then the others in pile order."""
    left = Counter(seen)
    stock = game.game.stock_idx
    faces = [
        (i, j, p[j]) for i, p in enumerate(game.piles) if i != stock for j in range(game.down[i], len(p))
    ]
    shown = set()
    theirs = board.piles
    for i, j, f in faces:
        t = theirs[i]
        if j < len(t) and t[j] == f and j >= board.down[i] and left[f] > 0:
            left[f] -= 1
            shown.add((i, j))
    for i, j, f in faces:
        if (i, j) not in shown and left[f] > 0:
            left[f] -= 1
            shown.add((i, j))
    return shown


def board_text(game: Game, shown: set[tuple[int, int]]) -> str:
    """`game`'s view text with every face-up card not in `shown` as `??`."""
    g = game.game
    parts = [g.id]
    for i, p in enumerate(game.piles):
        if i == g.stock_idx:
            parts.append(f"s:#{len(p)}")
            continue
        cards = [CODE[f] if (i, j) in shown else HIDDEN for j, f in enumerate(p)]
        parts.append(g.pile_names[i] + ":" + "".join(cards))
    return " ".join(parts)
