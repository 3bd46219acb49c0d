"""Spectator boards: sampled every SPECTATOR_FLUSH, shown SPECTATOR_DELAY late (docs/protocol.md §4, `spectate`).

Sans-I/O: every flush the asyncio layer asks `begin_sample` (positions
changed since the last read began, or no sample kept yet); if so it reads the
positions and hands them to `add_sample` (or, if the read failed, calls
`sample_failed`); then `due_boards` says which
sample, if any, is newly old enough to show. Spectators thus see every
board `delay` ms after it was played, never sooner, and never the same
sample twice.

No spectator sees a card of the deal that a rival still playing has not
seen. Every player has the same deal, so a card on one player's board tells
whoever sees it what lies at the same place of every rival's deal: a player
who watched their own race from a second identity would read their own
face-down cards and the stock cards they have not drawn yet (and the delay
does not help: the deal is fixed for the whole race).

So each card is followed by its place in the deal, not by its face (faces
repeat: the games hold two to four copies of each). A `DealTrack` replays a
player's moves from the deal with every card numbered by its place there;
a rival has seen a card once it has left their face-down cards and their
stock (cards never go back). `spectator_boards` shows each player's board
as their view text except that a face-up card some rival still playing has
not seen is hidden:

- on the waste, as `??` (a waste holds drawn cards in the order drawn: its
  place says nothing of its face);
- anywhere else (a tableau pile, a foundation), the pile is cut below it:
  neither that card nor any card above it is shown, nor how many there
  are. A `??` there would still say much of its face (a foundation's next
  place takes one face; a tableau card is bound by its neighbours).

Face-down cards stay `??` and the stock a count, as in the player's view.
Players who finished, resigned or ran out of time no longer count.

A track is built by replaying the player's moves from the deal; a long log
(a back-and-forth may be repeated at will) is read `REPLAY_PER_SAMPLE` moves
a sample, and the board is left out of the samples until its track has
caught up. As a rival a track behind hides more, never less: cards only ever
leave a player's unseen places.

What this does not hide: the boards' sizes and the public progress (moves
made, cards home) still tell that a hidden card moved, so a spectator may
narrow its face down to the few that the player's piles could take then
(in a game that builds by suit a later move may even pin it).
"""

from __future__ import annotations

from typing import Any

from protocol import rules
from protocol.rules.cards import CODE
from protocol.rules.view import HIDDEN

from .deal_track import DealTrack
from .room import Room

Boards = list[Any]  # the boards of one sample (BoardView messages)

# The most moves of one player's log a sample reads and replays (about 4 µs each): a room made
# for a race with a very long log (a spectator may make one on any process) costs the process
# at most this much per player and flush, not the whole log at once.
REPLAY_PER_SAMPLE = 2_000


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


def caught_up(room: Room[Any], pid: str, moves: list[str]) -> DealTrack:
    """`pid`'s track in `room` after `moves`, the moves of their log it did not have (a new
    track replays the whole log from the deal). A move that does not replay drops the track:
    the next sample starts it again from the whole log."""
    track = room.tracks.get(pid)
    if track is None:
        track = room.tracks[pid] = DealTrack(rules.deal(room.game, room.seed))
    try:
        for mv in moves:
            track.play(mv)
    except Exception:
        del room.tracks[pid]
        raise
    return track


def sample_boards(
    room: Room[Any], pids: list[str], logs: list[tuple[int, list[str], str]]
) -> list[tuple[str, int, str]]:
    """The boards of one sample from what the read of `pids` gave ((n, moves after those the
    room's tracks have, status) each): the tracks caught up, and the boards of those whose
    track has (a long log still being read is left out, and the room asks for the next
    sample at once)."""
    games = [
        (pid, caught_up(room, pid, moves), status == "playing")
        for pid, (_n, moves, status) in zip(pids, logs, strict=True)
    ]
    behind = {pid for pid, (n, _moves, _status) in zip(pids, logs, strict=True) if room.tracks[pid].n < n}
    if behind:
        room.dirty = True
    return [b for b in spectator_boards(games) if b[0] not in behind]


def spectator_boards(boards: list[tuple[str, DealTrack, bool]]) -> list[tuple[str, int, str]]:
    """The view texts spectators may see of `boards` (player, their game, still playing):
    (player, moves made, view), hiding what a rival still playing has not seen (module doc)."""
    unseen = {pid: track.unseen() for pid, track, still in boards if still}
    out = []
    for pid, track, _still in boards:
        hidden: set[int] = set()
        for rival, theirs in unseen.items():
            if rival != pid:
                hidden |= theirs
        text = board_text(track, hidden) if hidden else track.game.view_text()
        out.append((pid, track.n, text))
    return out


def board_text(track: DealTrack, hidden: set[int]) -> str:
    """The view text of `track`'s game with the cards of the deal in `hidden` hidden: `??` on
    the waste, elsewhere the pile cut below the first of them (module doc)."""
    game = track.game
    g = game.game
    parts = [g.id]
    for i, p in enumerate(game.piles):
        if i == g.stock_idx:
            parts.append(f"s:#{len(p)}")
            continue
        d = game.down[i]
        cards = [HIDDEN] * d
        places = track.places[i]
        for j in range(d, len(p)):
            if places[j] not in hidden:
                cards.append(CODE[p[j]])
            elif i == g.waste_idx:
                cards.append(HIDDEN)
            else:
                break
        parts.append(g.pile_names[i] + ":" + "".join(cards))
    return " ".join(parts)
