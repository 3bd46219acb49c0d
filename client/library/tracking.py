"""Keeping each race up to date from what the reader receives (all run in the reader)."""

from __future__ import annotations

import asyncio
import logging

import msgspec

from protocol import messages as m

from .board import Board, ViewMismatch
from .errors import Disconnected, ServerError
from .requesting import Requester

log = logging.getLogger("solrace.client")

#: Least wait after an automatic resync refused `rate-limited` before another may be asked.
RESYNC_BACKOFF_MS = 100
#: How long a gap in a race's versions may stay open before it is resynced: the missing version
#: is often the ack of the player's own move, overtaken by a rival's progress (the server writes
#: that from its pub/sub connection, the ack from its move pipe), and arrives within milliseconds.
GAP_GRACE_MS = 50


class RaceTracking(Requester):
    """Boards, snapshots and versions per race, updated by the reader in frame order."""

    def _note_version(self, race: str, ver: int) -> bool:
        """Record a race version; schedule a resync on a gap. False if already seen."""
        last = self.versions.get(race)
        if last is None or ver == last + 1:
            self.versions[race] = ver
            self._missing.get(race, set()).discard(ver)
            return True
        if ver <= last:
            missing = self._missing.get(race)
            if missing and ver in missing:
                missing.discard(ver)
                return True
            return False
        self._missing.setdefault(race, set()).update(range(last + 1, ver))
        self.versions[race] = ver
        self._schedule_resync(race, since=last, gap=True)
        return True

    def _on_ack(self, ack: m.Ack) -> None:
        board = self.boards.get(ack.race)
        if board is None:
            board = self.boards[ack.race] = Board(race=ack.race)
        if board.pending is not None and board.pending[0] + 1 == ack.n:
            board.pending = None
        self._note_version(ack.race, ack.ver)
        if ack.n <= board.n:
            return  # already reflected (a duplicate ack after a resync)
        try:
            if ack.n != board.n + 1 or not board.has_view:
                raise ViewMismatch(f"ack {ack.n} on board {board.n}")
            board.apply_ack(
                ack.move,
                ack.n,
                ack.revealed,
                home=ack.home,
                won=ack.won,
                status=ack.status,
                view_text=ack.view,
                legal=ack.legal,
            )
        except ViewMismatch as exc:
            log.warning("race %s: local view out of step (%s); resyncing", ack.race, exc)
            board.n = ack.n
            board.home, board.won, board.status = ack.home, ack.won, ack.status
            self._schedule_resync(ack.race, since=self.versions.get(ack.race))

    def _on_progress(self, ev: m.Progress) -> None:
        snap = self.races_seen.get(ev.race)
        # A snapshot at version V already holds every event up to V: an older one would undo.
        if snap is not None and ev.ver > snap.ver:
            for p in snap.players:
                if p.player == ev.player:
                    p.n, p.home, p.status, p.at = ev.n, ev.home, ev.status, ev.at
                    break

    def _on_snapshot(self, snap: m.RaceSnapshot, resync: bool = False) -> None:
        if snap.invite is not None:
            self.invites[snap.race] = snap.invite
        seen = self.races_seen.get(snap.race)
        if seen is not None and snap.ver < seen.ver and not resync:
            # Replies are not ordered with the race's events (docs/protocol.md §1): a reply
            # overtaken by a newer snapshot event, or the reverse, would show the seats as
            # they were (a rival's `ready` undone). Compared with snapshots only, not with
            # acks: a rival's older event may still follow the ack of one's own move.
            return
        self.races_seen[snap.race] = snap
        if any(p.player == self.player for p in snap.players):
            board = self.boards.setdefault(snap.race, Board(race=snap.race))
            board.total = snap.total
            for p in snap.players:
                if p.player == self.player:
                    board.status = p.status

    def _on_watched_again(self, snap: m.RaceSnapshot) -> None:
        """The reply to a `spectate` sent again after a reconnect: the race as it is now.

        Emitted as a `race` event, in its place among the race's events (docs/protocol.md §1:
        the events after it go on from its `ver`): it is how a watcher learns what changed
        while it was away, and of a race that ended meanwhile it is all there is (§4: its
        snapshot is the whole reply, nothing follows). The events missed up to its `ver`, its
        own included (an `end`), are resynced and come after it, as after any gap: a consumer
        that applied the snapshot skips those at or below its `ver` (§1).
        """
        race = snap.race
        last = self.versions.get(race)
        if last is not None and snap.ver < last:
            return  # older than what was already seen (Redis lost a tail): nothing to tell
        self._on_snapshot(snap)
        if last is not None and snap.ver > last:
            self._missing.setdefault(race, set()).update(range(last + 1, snap.ver + 1))
            self._schedule_resync(race, since=last)
        self.versions[race] = snap.ver
        self._emit(msgspec.structs.replace(snap, rid=None))

    def _on_started(self, ev: m.Started) -> None:
        board = self.boards.setdefault(ev.race, Board(race=ev.race))
        board.reset(ev.view, ev.n, status=m.PlayerStatus.PLAYING)
        snap = self.races_seen.get(ev.race)
        if snap is not None:
            snap.status = m.RaceStatus.RUNNING
            snap.starts_at, snap.deadline = ev.starts_at, ev.deadline

    def _on_end(self, ev: m.End) -> None:
        snap = self.races_seen.get(ev.race)
        if snap is not None:
            snap.status, snap.seed, snap.ranking = m.RaceStatus.FINISHED, ev.seed, ev.ranking
        board = self.boards.get(ev.race)
        if board is not None:
            for r in ev.ranking:
                if r.player == self.player:
                    board.status = r.status

    def _on_state(self, st: m.State) -> None:
        race = st.race.race
        missing = self._missing.pop(race, set())
        last = self.versions.get(race, -1)
        # The snapshot first: the events may go past it (docs/protocol.md §1), and those are
        # kept on it; the ones at or below it are already in it (`_on_progress` skips them).
        self._on_snapshot(st.race, resync=True)
        for ev in st.events or ():
            if ev.ver > last or ev.ver in missing:  # not seen yet: replay it as an event
                if type(ev) is m.Progress:
                    self._on_progress(ev)
                elif type(ev) is m.End:
                    self._on_end(ev)
                elif type(ev) is m.RaceSnapshot:
                    self._on_snapshot(ev)  # (one older than the state's: only its invite)
                self._emit(ev)
        self.versions[race] = max(last, st.race.ver, *(ev.ver for ev in st.events or ()))
        if st.you is not None:
            board = self.boards.setdefault(race, Board(race=race))
            # A state sent after an out-of-sync error can arrive behind the ack
            # of the next move; the board is then already newer than it.
            if st.you.n >= board.n or not board.has_view:
                board.reset(st.you.view, st.you.n, home=st.you.home, status=st.you.status, legal=st.you.legal)
        self._resyncing.discard(race)

    def _schedule_resync(self, race: str, since: int | None, gap: bool = False) -> None:
        if race in self._resyncing or not self.connected:
            return
        self._resyncing.add(race)
        self._spawn(self._quiet_resync(race, since, gap))

    async def _quiet_resync(self, race: str, since: int | None, gap: bool = False) -> None:
        try:
            if gap:
                # Not for a gap that fills by itself (GAP_GRACE_MS): each resync spends a
                # message credit the player's moves need.
                await asyncio.sleep(GAP_GRACE_MS / 1000)
                if not self._missing.get(race):
                    return
            await self.resync(race, since=since)
        except (ServerError, Disconnected, TimeoutError) as exc:
            log.warning("automatic resync of %s failed: %s", race, exc)
            if isinstance(exc, ServerError) and exc.code == "rate-limited":
                # Still marked as resyncing meanwhile: every event of the race would ask again
                # at once, spending the credits the player's moves need, and never catch up.
                await asyncio.sleep(max(exc.retry_ms or 0, RESYNC_BACKOFF_MS) / 1000)
        finally:
            self._resyncing.discard(race)
