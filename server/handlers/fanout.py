"""Published race events to this process's members and spectators (docs/protocol.md §3).

Every race event is published by a script (moves) or a commit (everything
else) on the race's channel; each process subscribes to the channels of the
races it holds a connection for and forwards the published bytes unchanged,
as server/core/room.py decides: in version order, once each. Each time Redis
confirms a race channel's subscription (a new room; again after the pub/sub
connection came back from a Redis restart or a network cut) the room is
gap-filled from its event stream (`on_subscribed`, server/core/gap_fill.py).
"""

from __future__ import annotations

import logging

import msgspec

from protocol import clock, rules
from protocol import messages as m
from protocol.messages import RaceStatus

from ..core import gap_fill as gap
from ..core import races as R
from ..core import room as rooms
from ..core.moves import PLAYING, Entry
from ..core.room import Delivery, Room
from ..core.session import Session
from ..retries import retried
from ..storage import PositionCache
from .runtime import Runtime

log = logging.getLogger("solrace.fanout")


SEATED_LOADS = 3  # loads of a race a seated notice makes before it gives up on a quiet moment

encode = m.encode


class _Head(msgspec.Struct):
    """The few fields of a published event the fan-out needs (the rest is ignored)."""

    t: str
    ver: int = 0
    player: str = ""
    race: str = ""
    status: str = ""


_head = msgspec.msgpack.Decoder(_Head)
_snap = msgspec.msgpack.Decoder(m.RaceSnapshot)


def _started(rid: str, snap: m.RaceSnapshot | R.Race, ver: int, view: str, n: int) -> bytes:
    return encode(
        m.Started(
            race=rid,
            ver=ver,
            starts_at=snap.starts_at or 0,
            deadline=snap.deadline or 0,
            commitment=snap.commitment,
            total=snap.total,
            view=view,
            n=n,
        )
    )


class Fanout:
    def __init__(self, svc: Runtime) -> None:
        self.svc = svc
        self.fills = gap.Fills()

    def on_bus(self, channel: bytes, data: bytes) -> None:
        svc = self.svc
        if channel.startswith(b"race:"):
            room = svc.local.get(channel[5:].decode())
            if room is None:
                return
            if room.filling is not None:  # a gap fill is running: forward after it, in order
                room.filling.append(data)
                return
            self.forward(room, data)
        elif channel.startswith(b"player:"):
            head = _head.decode(data)
            pid = channel[7:].decode()
            notice_hook = svc.notice_hooks.get(head.t)  # revoked sessions: server/handlers/accounts.py
            if head.t == "seated":
                svc.spawn(self.seated(pid, head.race))
            elif notice_hook is not None:  # a notice for this process, not its connections
                notice_hook(pid, data)
            else:  # any other notice (a rating change, a rematch offer) goes to the player's connections
                for c in list(svc.players.get(pid, ())):
                    c.send(data)
        else:
            for prefix, hook in svc.bus_hooks.items():
                if channel.startswith(prefix):
                    hook(channel, data)

    def on_subscribed(self, channel: bytes) -> None:
        """Redis confirmed a race channel's subscription (a new room, or again after pub/sub
        was lost): fill the room from its event stream (server/core/gap_fill.py).

        A room starts at the version of the race it was made from, but its channel is
        subscribed a moment later; after a reconnect, everything published while pub/sub was
        down is missing. From this confirmation on each event of the race arrives live (held
        back while the fill runs, from right here: later messages of this read are held too),
        and each earlier one is in the stream, which the fill reads after it."""
        if channel.startswith(b"race:"):
            room = self.svc.local.get(channel[5:].decode())
            if room is not None and self.fills.request(room):
                self.svc.spawn(self._fill(room))

    async def _fill(self, room: Room[Session]) -> None:
        """Forward the events the room missed, then the ones held meanwhile: in order, once each."""
        missed: list[bytes] = []
        try:
            while True:
                missed = await self._read_missed(room)
                if not self.fills.read_again(room) or self.svc.local.get(room.rid) is not room:
                    break
                # Pub/sub dropped (and came back) during the read: what was published in that
                # gap may be newer than the read. Forward what it found (contiguous from
                # `sent`), then read again from there, still holding live events.
                self._forward_all(room, missed)
                missed = []
        finally:
            self._forward_all(room, missed + self.fills.done(room))

    async def _read_missed(self, room: Room[Session]) -> list[bytes]:
        """The events after the room's last forwarded version, from the stream; the snapshot if
        the stream no longer reaches back; nothing if the reads keep failing (the next event's
        version jump makes clients resync)."""
        store = self.svc.store
        rid = room.rid

        async def read() -> list[bytes]:
            missed = await store.events_since(rid, room.sent)
            if missed is not None:
                return missed
            _now, race = await store.load_race(rid)  # the stream no longer reaches back
            return gap.fill_frames(race, None) if gap.needs_fill(race, room.sent) else []

        missed = await retried(
            read, f"gap fill of race {rid} failed; clients resync on the version jump", log
        )
        return missed or []

    def _forward_all(self, room: Room[Session], frames: list[bytes]) -> None:
        for data in frames:
            if self.svc.local.get(room.rid) is not room:
                return  # the race ended (or was dropped) meanwhile
            self.forward(room, data)  # skips what was forwarded already

    def forward(self, room: Room[Session], data: bytes) -> None:
        """Forward one published race event to this process's members and spectators."""
        head = _head.decode(data)
        what = rooms.deliver(room, head.t, head.ver)
        if what is Delivery.SKIP:
            return
        if what is Delivery.PROGRESS:
            rooms.send_progress(room, data, rooms.progress_mover(head.player, head.status))
            return
        snap = _snap.decode(data) if what is Delivery.SNAPSHOT else None
        pids = [p.player for p in snap.players] if snap is not None else []
        if snap is not None:
            # A spectator who just took a seat stops watching before anything more goes out.
            self.svc.drop_seated_spectators(room, pids)
        for c in list(rooms.everyone(room)):
            c.send(data)
        if snap is not None:
            if rooms.apply_snapshot(room, snap.status, snap.ver, pids, snap.starts_at, snap.deadline):
                self._send_start(room, snap)
            self.svc.arm_timer(room)
            self.svc.drop_room_if_idle(room)  # its only spectators took seats elsewhere
        elif what is Delivery.END:
            self._close(room)

    def _send_start(self, room: Room[Session], snap: m.RaceSnapshot) -> None:
        """Each local player gets their own view of the (same) deal; warm the move cache."""
        if not room.members:
            return
        g = rules.deal(room.game, room.seed)
        frame = _started(room.rid, snap, snap.ver, g.view_text(), 0)
        games = self.svc.games
        berserk = {p.player for p in snap.players if p.berserk}
        for pid, sessions in room.members.items():
            key = (room.rid, pid)
            if key not in games:
                game = g.copy()
                dl = (
                    clock.own_deadline(snap.deadline, snap.starts_at, snap.time_limit_s, True)
                    if pid in berserk
                    else None
                )
                games[key] = Entry(game, PositionCache(game), 0, PLAYING, "", dl)
            for c in sessions:
                c.send(frame)

    def _close(self, room: Room[Session]) -> None:
        room.status = RaceStatus.FINISHED
        for sessions in room.members.values():
            for c in sessions:
                c.races.discard(room.rid)
        for c in room.spectators:
            c.spectating.discard(room.rid)
        room.members.clear()
        room.spectators.clear()
        self.svc.drop_room(room)

    def on_bus_reconnect(self) -> None:
        """Pub/sub is back (Redis restart, network) and Redis confirmed every resubscription.

        The rooms are being gap-filled already: each from the confirmation of its channel's
        resubscription (`on_subscribed`), from the last version forwarded, live events held
        meanwhile; then the missed events and the held ones go out in version order, each
        once. A drop during a fill makes it read again (server/core/gap_fill.py).
        """
        svc = self.svc
        # A quick-match "seated" notice (player channel) may have been lost too: look the seats up.
        for pid in {s.player for sessions in svc.players.values() for s in sessions if s.quick}:
            svc.spawn(self._recheck_seats(pid))

    async def _recheck_seats(self, pid: str) -> None:
        async def recheck() -> bool:
            for rid in await self.svc.store.player_races(pid):
                await self.seated(pid, rid)
            return True

        await retried(recheck, f"could not look up the seats of {pid} after a pub/sub reconnect", log)

    async def seated(self, pid: str, rid: str) -> None:
        """A quick-match group seated this player (maybe by another process)."""
        svc = self.svc
        sessions = svc.players.get(pid)
        if not sessions:
            return
        fresh: list[Session] = []  # the connections made members here
        for _attempt in range(SEATED_LOADS):
            _now, race = await svc.store.load_race(rid)
            if race is None or race.seat_of(pid) is None:
                # Gone, or left since (a notice come late): its connections are not members of it.
                return
            frames = [encode(m.RaceSnapshot(**R.snapshot(race)))]
            if race.status == RaceStatus.RUNNING:
                # The start went by while the notice was lost (a pub/sub gap): this player's own
                # start, from their stored game.
                pg = (await svc.store.load_player(rid, pid)).game
                if pg is not None:
                    frames.append(_started(rid, race, race.ver, pg.game().view_text(), pg.n))
            for c in list(sessions):
                if rid not in c.races:
                    svc.add_member(c, race)
                    fresh.append(c)
            if not fresh:
                return
            how = rooms.joined_at(svc.local.get(rid), race.ver)
            if how is rooms.Joined.SEND:
                for c in fresh:
                    for f in frames:
                        c.send(f)
            if how is not rooms.Joined.RELOAD:
                return
        log.warning("race %s kept changing while %s was seated; the client resyncs", rid, pid)
