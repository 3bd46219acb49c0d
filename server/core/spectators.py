"""Spectator boards: sampled every SPECTATOR_FLUSH, shown SPECTATOR_DELAY late (docs/protocol.md §4, `spectate`).

Sans-I/O: every flush the asyncio layer asks `begin_sample` (positions
changed since the last read began, or no sample kept yet); if so it reads the
positions and hands them to `add_sample` (or, if the read failed, calls
`sample_failed`); then `due_boards` says which
sample, if any, is newly old enough to show. Spectators thus see every
board `delay` ms after it was played, never sooner, and never the same
sample twice.

No spectator sees a card of the deal that a rival still playing has not
seen. Every player has the same deal, so a card lying where the deal put
it (dealt, turned up, drawn or refilled from the stock, not moved since)
tells whoever sees it what that rival's own board holds at that place: a
player who watched their own race from a second identity would read their
own face-down cards and the stock cards they have not drawn yet (and the
delay does not help: the deal is fixed for the whole race). The rival has
seen the deal's cards their own board turned up: read from it (face-down
counts and stock size only ever shrink). So `spectator_boards` writes as
`??`, like a face-down card, every face-up card of one player's board that
may lie where the deal put it, at a place the rival has not seen
(`unseen_places`, which errs on the side of hiding):

- a Rouge et Noir tableau pile's bottom face-up card (the dealt card turned
  up, when any lie face down under it) at an index the rival still has
  face down;
- a waste card that may be a stock card the rival has not drawn: the waste
  holds drawn cards in the order drawn, so its card j is at most the
  (taken - waste size + j)-th card taken from the stock; it is hidden
  unless that bound is below the number the rival has taken;
- while the player has taken more cards from the stock than the rival: in
  Rouge et Noir, every face-up card of each tableau pile a draw dealt one
  of those cards to (moves and later draws may have covered it), but its
  dealt bottom card; in Racing Aces, every tableau card unless all the
  cards taken still lie on the waste (one may have refilled any pile).

That holds even where the rival's own board shows the same face in the
same place (it may be another copy). Every other face-up card (reserves
and bases, seen by all from the deal; cards moved by play) is shown only
while every other player still playing has had that face up too, counted
per face (the games hold two to four of each): first the copies that the
rival's own board shows in the same place, then the others in pile order;
the rest are `??`. What a player has had face up is what their sampled
boards showed, so it starts when the first spectator does and may count
less than they saw: it hides more, never less.

What this does not hide: a card moved by play may have come from a place
the rival has not seen. Its face is shown when the rival has seen as many
copies, so a spectator who compares successive boards (a `??` waste card
that reaches a foundation where its face is shown) may learn that face.
The piles' sizes, and so the ranks a foundation's places must hold, are
never hidden.
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
    sees `board` may be shown (module doc): none of `unseen_places`, and of the others as
    many copies of each face as the rival has seen, first those where their own board shows
    that face in the same place (most likely the same card of the deal, so a copy shown
    elsewhere says nothing of where it came from), then the others in pile order."""
    left = Counter(seen)
    stock = game.game.stock_idx
    unseen = unseen_places(game, board)
    faces = [
        (i, j, p[j])
        for i, p in enumerate(game.piles)
        if i != stock
        for j in range(game.down[i], len(p))
        if (i, j) not in unseen
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


def unseen_places(game: Game, board: Game) -> set[tuple[int, int]]:
    """The (pile, index) of the face-up cards of `game` that may lie where the deal put them
    (dealt, turned up, drawn or refilled from the stock, not moved since) while the rival,
    who sees `board` (the same deal), has not seen that card of the deal (module doc). The
    face-down counts and the stock only ever shrink, so `board` tells all the rival saw."""
    g = game.game
    piles = game.piles
    down = game.down
    out: set[tuple[int, int]] = set()
    # A tableau pile's bottom face-up card is the dealt one when cards lie face down under it
    # (taking it away turns the next one up); on an emptied pile, perhaps not: hidden alike.
    for i in g.tab_idx:
        d = down[i]
        if d < len(piles[i]) and d < board.down[i]:
            out.add((i, d))
    stock = g.stock_idx
    taken = g.stock_size - len(piles[stock])  # stock cards the player has taken, in order
    known = g.stock_size - len(board.piles[stock])  # ... and the rival: all seen face up
    if taken <= known:
        return out
    w = g.waste_idx
    waste = 0
    if w is not None:
        # The waste is a subsequence of the cards taken, in order: its card j is at most the
        # (taken - len + j)-th.
        waste = len(piles[w])
        out.update((w, j) for j in range(waste) if taken - waste + j >= known)
    if g.draw_to_tableau:
        # A draw deals stock card m to the (m mod n)-th tableau pile, on top; later moves and
        # draws may cover it: every face-up card of that pile but its dealt bottom one.
        tab = g.tab_idx
        n = len(tab)
        dealt_to = {tab[m % n] for m in range(known, min(taken, known + n))}
        for i in dealt_to:
            d = down[i]
            out.update((i, j) for j in range(d + 1 if d else 0, len(piles[i])))
    elif g.refill and waste < taken:
        # A card taken from the stock and no longer on the waste may have refilled any
        # tableau pile (all of whose cards are face up).
        for i in g.tab_idx:
            out.update((i, j) for j in range(down[i], len(piles[i])))
    return out


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
