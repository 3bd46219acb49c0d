"""Watching (docs/protocol.md §4, and `replay` in §3): spectators and their delayed boards, the race list, replays."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence

from protocol import messages as m
from protocol.messages import ErrorCode, RaceStatus

from ..core import privacy
from ..core import races as R
from ..core import room as rooms
from ..core import spectators as boards
from ..core.checks import no_such_race
from ..core.race_list import race_list
from ..core.races import RaceError
from ..core.room import Room
from ..core.session import Session
from .lobby import race_id, snapshot_reply
from .runtime import Runtime

log = logging.getLogger("solrace.watch")

encode = m.encode


async def finished_race(
    svc: Runtime, s: Session, rid: str, invite: str | None
) -> tuple[R.Race, dict[str, list[tuple[int, int, str]]]]:
    """A finished race and its players' move logs, for who may see them: the replay's and
    the analysis's one check (private races need their invite; a daily attempt stays
    hidden until its day closes)."""
    _now, race = await svc.store.load_race(rid)
    if race is None:
        raise no_such_race()
    privacy.check_see(race, s.player, invite)
    if race.status != RaceStatus.FINISHED:
        raise RaceError(ErrorCode.RACE_NOT_OVER, "the race is not finished")
    if svc.replay_guard is not None:
        await svc.replay_guard(s, race)
    return race, await svc.store.move_logs(race)


class Watch:
    def __init__(self, svc: Runtime) -> None:
        self.svc = svc
        # The unattended public lobbies among loaded races (handlers/presence.py), left out of the list.
        self.unattended: Callable[[Sequence[R.Race | None | BaseException]], Awaitable[set[str]]] | None = (
            None
        )

    async def replay(self, s: Session, msg: m.Replay) -> m.ReplayData:
        rid = race_id(msg.race)
        race, logs = await finished_race(self.svc, s, rid, msg.invite)
        players = [
            m.ReplayPlayer(
                player=p.player,
                name=p.name,
                moves=[(mv, at) for at, _h, mv in logs[p.player]],
                account=p.account,
                # A finished race: every player's last status change is the end of their game.
                ended_ms=None if p.at is None or race.starts_at is None else p.at - race.starts_at,
            )
            for p in race.players
        ]
        proof, par = R.published_proof(race, day_closed=True)  # finished_race: a daily's day closed
        return m.ReplayData(
            proof=proof,
            par=par,
            rid=msg.rid,
            race=rid,
            game=race.game,
            rules_version=race.rules_version,
            deal_version=race.deal_version,
            seed=race.seed,
            commitment=race.commitment,
            ranking=[m.RankEntry(**e) for e in race.ranking or []],
            players=players,
            starts_at=race.starts_at,
        )

    async def races(self, s: Session, msg: m.Races) -> m.RaceList:
        svc = self.svc
        most = svc.settings.max_list
        ids = await svc.store.public_races(most)
        loaded = await svc.store.load_races(ids)
        hidden = await self.unattended(loaded) if self.unattended is not None else set()
        shown, stale = race_list(ids, loaded, msg.game, most, hidden, svc.now_ms())
        for rid in stale:
            await svc.store.index(rid, None)
        return m.RaceList(rid=msg.rid, races=[m.RaceSummary(**e) for e in shown])

    async def spectate(self, s: Session, msg: m.Spectate) -> m.RaceSnapshot | None:
        svc = self.svc
        rid = race_id(msg.race)
        _now, race = await svc.store.load_race(rid)
        if race is None:
            raise no_such_race()
        privacy.check_spectate(race, s.player, msg.invite)
        if svc.spectate_guard is not None:
            await svc.spectate_guard(s, race)
        if rid not in s.spectating and race.status != RaceStatus.FINISHED:
            # A finished race has nothing live to follow: its snapshot alone, taking no slot
            # (a race that ends frees its slot, docs/protocol.md §4), no room, no count.
            # Checked with no await before the add: each watched race costs this process a
            # room, and fan-out work for every event and board of the race.
            most = svc.settings.max_spectating
            if len(s.spectating) >= most:
                raise RaceError(
                    ErrorCode.TOO_MANY_RACES,
                    f"this connection already spectates {most} races: unspectate one first",
                )
            # The reply's place, taken before the spectator is in the room: the events and
            # boards forwarded to it from then on (while its count goes to Redis) go out after
            # the snapshot, never before it, and none above its version is missed
            # (docs/protocol.md §4: the reply, then live events; as `Play.in_place`).
            answer = s.later()
            try:
                room = svc.ensure_room(race)
                room.spectators.add(s)
                s.spectating.add(rid)
                joined = room.sent  # the events after this one reach the spectator
                await svc.store.spectators(rid, +1)
                race.spectators += 1
                if room.boards_frame is not None:
                    svc.spawn(self._late_boards(s, room))
                # A join of this player that this process saw while the race was loading.
                self.drop_seated(room, room.pids)
                svc.drop_room_if_idle(room)
                if race.ver < joined:
                    # Events were forwarded here between the snapshot's read and the spectator's
                    # arrival, which it will never get: read the race again (this spectator
                    # counted), no older than them now.
                    _now, again = await svc.store.load_race(rid)
                    race = again if again is not None else race
            except BaseException:
                answer.settle()  # the error goes out behind what was queued
                raise
            answer(encode(snapshot_reply(msg, race)))
            return None
        return snapshot_reply(msg, race)

    def drop_seated(self, room: Room[Session], pids: list[str]) -> None:
        """Stop the watching of every spectator here who has a seat among `pids`
        (a player who watched a race, then joined it: see `rooms.seated_spectators`)."""
        for c in rooms.seated_spectators(room, pids):
            room.spectators.discard(c)
            c.spectating.discard(room.rid)
            self.svc.spawn(self._count_out(room.rid))

    async def _count_out(self, rid: str) -> None:
        try:
            await self.svc.store.spectators(rid, -1)
        except Exception as exc:
            self.svc.failed("could not count a spectator out", exc)

    async def _late_boards(self, s: Session, room: Room[Session]) -> None:
        await asyncio.sleep(0)  # after the snapshot reply
        if room.boards_frame is not None and s in room.spectators:
            s.send(room.boards_frame)

    async def unspectate(self, s: Session, msg: m.Unspectate) -> m.Ok:
        await self.unspectate_race(s, msg.race)
        return m.Ok(rid=msg.rid)

    async def unspectate_race(self, s: Session, rid: str) -> None:
        if rid not in s.spectating:
            return
        s.spectating.discard(rid)
        room = self.svc.local.get(rid)
        if room is not None:
            room.spectators.discard(s)
            self.svc.drop_room_if_idle(room)
        await self._count_out(rid)

    async def boards_loop(self) -> None:
        """Every SPECTATOR_FLUSH: sample the boards of watched running races; show them after the delay."""
        svc = self.svc
        st = svc.settings
        while not svc.stopping:
            await asyncio.sleep(st.spectator_flush_ms / 1000)
            now = svc.now_ms()
            for room in list(svc.local.values()):
                if not room.spectators or room.status != RaceStatus.RUNNING:
                    continue
                try:
                    await self._sample(room, now)
                except Exception as exc:  # an outage: one log line, not one per race and flush
                    svc.failed("spectator boards failed", exc)

    async def _sample(self, room: Room[Session], now: int) -> None:
        if boards.begin_sample(room):
            # Stamped with the server time read together with the moves, after them: the
            # boards show every move made up to `at` and none made later.
            tracks, pids = room.tracks, list(room.pids)  # the order asked in is the order read
            have = [tracks[pid].n if pid in tracks else 0 for pid in pids]
            try:
                read_at, logs = await self.svc.store.logs_since(
                    room.rid, pids, have, boards.REPLAY_PER_SAMPLE
                )
                shown = boards.sample_boards(room, pids, logs)
            except Exception:
                boards.sample_failed(room)
                raise
            sample = [m.BoardView(player=pid, n=n, view=view) for pid, n, view in shown]
            boards.add_sample(room, read_at, sample)
        due = boards.due_boards(room, now, self.svc.settings.spectator_delay_ms)
        if due is None:
            return
        at, sample = due
        room.boards_frame = encode(m.Boards(race=room.rid, at=at, boards=sample))
        # One write for all; a spectator with a backlog skips this one (latest wins).
        self.svc.broadcast_latest(room.spectators, room.boards_frame)
