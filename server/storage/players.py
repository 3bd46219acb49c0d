"""Players across races: names, the races they sit in, their channel, quick-match queues."""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

import msgspec

from .keys import (
    player_channel,
    profile_key,
    quick_gone,
    quick_gone_prefix,
    quick_holders,
    quick_holders_prefix,
    quick_key,
    quick_marks,
    quick_tokens,
    quick_tokens_prefix,
    race_key,
    recent_entries_key,
    recent_key,
    seats_key,
)
from .parts import StorePart
from .recent import recent_ttl_s
from .records import text_or_none
from .scripts import QUICK, SEATS
from .sessions import Sessions


class QuickEntry(NamedTuple):
    """What a quick-match entry taken out of its queue carried: the claims on its seat
    (`reserve_seat` tokens), the connections that held it ("PROC/CONN": a process's
    `Sessions.proc`, then the connection's `Session.conn_id`), and how often
    its player had unqueued then (quick.lua: an unqueue since keeps it from being put back)."""

    claims: tuple[str, ...]
    holders: tuple[str, ...]
    unqueues: int


QUICK_TTL_S = 3600  # a quick-match queue, and its holder sets, live this long after its last arrival
# A server process marks itself alive in each queue where its connections hold entries (quick.lua),
# renewing the mark every second: its entries are seated only while the mark lasts, so that those
# of a process that died (kill -9: its connections never let go) seat nobody QUICK_LIVE_MS later.
QUICK_LIVE_MS = 5000
# ...and leave the queue this long after its mark lapsed, their seats given back: until then a
# process that only stalled (or could not reach Redis) finds its entries waiting where they were.
QUICK_DROP_MS = 600_000

log = logging.getLogger("solrace.quick")
RESERVE_MS = 60_000  # a seat reserved for a create or join in progress counts this long at most


def reservations_key(pid: str) -> str:
    """``pl:{PID}:seating`` zset: id -> deadline (ms), the player's reserved seats (seats.lua)."""
    return "pl:{" + pid + "}:seating"


def claims_key(pid: str, hold: str) -> str:
    """``pl:{PID}:claims:HOLD`` set: the tokens of the requests that claimed the queue entry's
    seat `hold` (seats.lua): it is given back with the last claim (`drop_claims`)."""
    return "pl:{" + pid + "}:claims:" + hold


def new_claim() -> str:
    """A token for one queueing request's claim on its entry's seat."""
    return secrets.token_hex(8)


def quick_hold(game: str, seats: int) -> str:
    """The seat a quick-match entry reserves while it waits (never a race id: no race has it).
    It counts while its reservation lasts, and after that while the entry waits (its holder
    set exists: `player_races`), however long arrivals keep the queue alive."""
    return f"quick:{game}:{seats}"


def rated_hold(game: str) -> str:
    """The seat a rated pool entry of `game` (one per game, whatever its size) reserves while
    it waits (handlers/rated_queue.py): its reservation lasts as long as the entry may (the pool's
    `stale_ms` from the last rated `quick` or keep-alive, `RatedQueue.keep_alive`)."""
    return f"rquick:{game}"


def _quick_entry(seat: str) -> tuple[str, int] | None:
    """(game, seats) of a `quick_hold` id, else None."""
    kind, _, rest = seat.partition(":")
    game, _, size = rest.rpartition(":")
    if kind != "quick" or not game or not size.isdigit():
        return None
    return game, int(size)


class Players(StorePart):
    sessions: Sessions

    async def touch_player(self, pid: str, name: str) -> None:
        """An account's hello (or claim): its display name, and its records live on like a
        resumed guest's; its recent races for an account's longer time (recent.py)."""
        ttl = self.settings.session_ttl_s
        recent_ttl = recent_ttl_s(ttl, account=True)
        pipe = self.redis.pipeline(transaction=False)
        pipe.hset(profile_key(pid), "name", name)
        pipe.expire(profile_key(pid), ttl)
        pipe.expire(seats_key(pid), ttl)
        pipe.expire(recent_key(pid), recent_ttl)
        pipe.expire(recent_entries_key(pid), recent_ttl)
        await pipe.execute()

    async def player_name(self, pid: str) -> str:
        return text_or_none(await self.redis.hget(profile_key(pid), "name")) or "player"

    async def player_races(self, pid: str) -> list[str]:
        """Races where the player holds a seat and which are not finished (prunes the rest, but
        not a reservation: its race may not be stored yet, `reserve_seat`; nor the seat of a
        casual quick-match entry that still waits, whose reservation may have lapsed)."""
        ids, reserved = await self._seats(pid, "snap")
        ids = [i.decode() for i in ids]
        if not ids:
            return []
        pending = {i.decode() for i in reserved}
        entries = [_quick_entry(rid) for rid in ids]
        pipe = self.redis.pipeline(transaction=False)
        for rid, entry in zip(ids, entries):
            if entry is not None:
                pipe.exists(quick_holders(*entry, pid))
            else:
                pipe.hmget(race_key(rid), "status", "players")
        live, gone = [], []
        for rid, entry, reply in zip(ids, entries, await pipe.execute()):
            if entry is not None:
                if not reply and rid not in pending:  # the entry left (seated, unqueued, closed)
                    gone.append(rid)
                continue
            status, players = reply
            if status is None or status == b"finished" or pid.encode() not in (players or b""):
                if rid not in pending:  # reserved when the seats were read: not gone yet
                    gone.append(rid)
            else:
                live.append(rid)
        if gone:
            await self.prune_seats(pid, *gone)  # again unless reserved since
        return sorted(live)

    async def seat_ids(self, pid: str) -> set[str]:
        """The ids of `pid`'s seats as they are, unpruned: races maybe finished or gone, and
        reservations and queue entries' holds (a cheap look; `player_races` checks each)."""
        return {
            i.decode() if isinstance(i, bytes) else str(i) for i in await self.redis.smembers(seats_key(pid))
        }

    async def prune_seats(self, pid: str, *ids: str) -> None:
        """These seats of `pid` are over (their races finished, gone, or no longer the
        player's): each leaves its seats unless it is reserved (storage/seats.lua)."""
        if ids:
            await self._seats(pid, "prune", *ids)

    async def _seats(self, pid: str, op: str, *args: object, hold: str = "") -> Any:
        keys = [seats_key(pid), reservations_key(pid)]
        return await SEATS(self.redis, [*keys, claims_key(pid, hold)] if hold else keys, [op, *args])

    async def reserve_seat(
        self, pid: str, rid: str, most: int, ms: int = RESERVE_MS, *, renew: bool = False, claim: str = ""
    ) -> tuple[int, int]:
        """Count `pid`'s seats and take one more, `rid`, in one step (all processes): so two
        requests at once never both pass the limit. Returns (status, seats held before):
        status 1: `rid` reserved, for `ms` at most (then the prune drops it unless its race
        holds the player): `settle_seats` once the race holds the player, else
        `release_seats`; 0: `rid` was a seat already, nothing reserved (`renew`: a queue
        entry's seat, queued again: reserved again for `ms`, nothing to give back either);
        -1: refused, `most` seats held already. `claim`: a token claiming the seat of a queue
        entry (`rid` a hold) unless refused: `drop_claims` gives it back."""
        await self.player_races(pid)  # the seats of gone races leave first: they do not count
        ttl_s = max(self.settings.session_ttl_s, ms // 1000 + 1)
        args = [rid, most, ms, ttl_s, "1" if renew else "0", *([claim] if claim else [])]
        status, held = await self._seats(pid, "reserve", *args, hold=rid if claim else "")
        return int(status), int(held)

    async def drop_claims(self, pid: str, hold: str, tokens: Sequence[str]) -> bool:
        """These claims on `pid`'s queue entry seat `hold` end (the entry that carried them was
        seated, or left); the seat goes with the last claim. True if it went."""
        return bool(await self._seats(pid, "drop", hold, *tokens, hold=hold))

    async def settle_seats(self, pid: str, *ids: str) -> None:
        """Reservations of `pid` end: their races hold the player (the seats stay)."""
        if ids:
            await self._seats(pid, "settle", *ids)

    async def release_seats(self, pid: str, *ids: str) -> None:
        """Reservations of `pid` are given back: seat and reservation go."""
        if ids:
            await self._seats(pid, "release", *ids)

    async def hold_seat(self, pid: str, rid: str) -> None:
        """Record that `pid` sits in `rid`, with no notice: written before the race's commit, so
        that a process dying right after it leaves the player able to resume the race."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.sadd(seats_key(pid), rid)
        pipe.expire(seats_key(pid), self.settings.session_ttl_s)
        await pipe.execute()

    async def add_seat(self, pid: str, rid: str) -> None:
        """Seat `pid` in `rid`; its connections on every process learn it (a `seated` notice)."""
        await self.hold_seat(pid, rid)  # again: a resume may have pruned it before the commit
        await self.redis.publish(player_channel(pid), msgspec.msgpack.encode({"t": "seated", "race": rid}))
        await self.sessions.keep(pid)

    async def remove_seat(self, pid: str, rid: str) -> None:
        await self.redis.srem(seats_key(pid), rid)

    async def publish_player(self, pid: str, frame: bytes) -> None:
        await self.redis.publish(player_channel(pid), frame)

    # --- quick-match -------------------------------------------------------------------------
    # An entry is the player's: each connection that queued it holds it (its `conn_id`, in a set
    # in the queue's slot, server/storage/quick.lua); it leaves with its last holder or by
    # `quick_leave`, and a group taken out takes its holders with it.

    async def quick_push(
        self, game: str, seats: int, pid: str, holder: str, claim: str
    ) -> dict[str, QuickEntry]:
        """Queue `pid`, its entry held by the connection `holder` ("PROC/CONN": its process,
        marked alive, then its id; quick.lua) and carrying `claim` (the token of its seat's
        claim, `reserve_seat`); the group taken out if this completes one (any process may
        take it: the first `seats` entries with a holder alive): each player with what their
        entry carried."""
        proc = holder.partition("/")[0] if "/" in holder else ""
        args = _take_args("q", game, seats, pid, holder, claim, proc)
        keys = [*self._quick_keys(game, seats, pid), quick_marks(game, seats)]
        return await self._taken(game, seats, await QUICK(self.redis, keys, args))

    async def quick_take(self, game: str, seats: int) -> dict[str, QuickEntry]:
        """The group that waits first in the queue of (`game`, `seats`), taken out as
        `quick_push` takes one (with nobody queued), or {} if fewer than `seats` wait."""
        keys = [quick_key(game, seats), quick_marks(game, seats)]
        return await self._taken(game, seats, await QUICK(self.redis, keys, _take_args("g", game, seats)))

    async def quick_keep(self, game: str, seats: int, proc: str) -> dict[str, QuickEntry]:
        """This process, `proc`, still holds entries of the queue of (`game`, `seats`): its mark
        is renewed (for QUICK_LIVE_MS), then a group is taken out as `quick_take` does (one may
        wait full once a stalled process marks itself alive again)."""
        keys = [quick_key(game, seats), quick_marks(game, seats)]
        args = _take_args("a", game, seats, proc=proc)
        return await self._taken(game, seats, await QUICK(self.redis, keys, args))

    async def quick_waiting(self, game: str, seats: int, pid: str) -> tuple[bool, int]:
        """(whether `pid` is in the queue of (`game`, `seats`), how many entries there have a
        holder alive): those a group would be formed of."""
        keys = [quick_key(game, seats), quick_marks(game, seats)]
        queued, alive = await QUICK(self.redis, keys, _take_args("w", game, seats, pid))
        return bool(queued), int(alive)

    async def _taken(self, game: str, seats: int, reply: list[Any]) -> dict[str, QuickEntry]:
        """quick.lua's reply to 'q', 'g' or 'a': the group taken out; the claims of the entries
        that left for good (every holder's process gone) are given back here."""
        group, dropped = reply
        flat = [x.decode() for x in dropped]
        for pid, tokens in zip(flat[::2], flat[1::2], strict=True):
            log.info(
                "%s left the quick-match queue of %s for %d: its server process is gone", pid, game, seats
            )
            try:
                await self.drop_claims(pid, quick_hold(game, seats), tokens.split())
            except Exception:  # the seat's reservation lapses (QUICK_TTL_S) all the same
                log.warning("could not give back the seat of %s's quick-match entry", pid, exc_info=True)
        return _group(group)

    async def quick_put_back(
        self, game: str, seats: int, group: dict[str, QuickEntry]
    ) -> dict[str, tuple[str, ...]]:
        """Put a group that `quick_push` took out but nobody could seat back at the head of
        its queue, in its order, each entry with its holders and claims (a player who queued
        again meanwhile keeps their place and their new entry takes these on), less what its
        player did meanwhile (quick.lua): an entry unqueued, or whose every holder closed, is
        not put back. Those entries, each with the claims it carried (the caller's to give
        back)."""
        keys = [quick_key(game, seats)]
        args: list[Any] = ["u", "", QUICK_TTL_S]
        for pid, entry in group.items():
            keys += self._quick_keys(game, seats, pid)[1:]
            args += [pid, " ".join(entry.holders), " ".join(entry.claims), entry.unqueues]
        flat = [x.decode() for x in await QUICK(self.redis, keys, args)]
        return {p: tuple(tokens.split()) for p, tokens in zip(flat[::2], flat[1::2], strict=True)}

    async def quick_release(self, game: str, seats: int, pid: str, holder: str) -> list[str] | None:
        """The connection `holder` lets go of `pid`'s entry (it closed): the claims the entry
        carried if it left with it, the last holder, else None."""
        keys = [*self._quick_keys(game, seats, pid), quick_marks(game, seats)]
        return _left(await QUICK(self.redis, keys, ["r", pid, holder, QUICK_TTL_S, QUICK_DROP_MS]))

    async def quick_leave(self, game: str, sizes: Iterable[int], pid: str) -> dict[int, list[str]]:
        """`pid`'s entries for `game` in the queues of `sizes` leave, with their holders, whichever
        connections (on whichever process) queued them: the claims each carried, by size."""
        sizes = list(sizes)
        replies = await asyncio.gather(
            *(QUICK(self.redis, self._quick_keys(game, n, pid), ["l", pid, QUICK_TTL_S]) for n in sizes)
        )
        return {n: tokens for n, tokens in zip(sizes, map(_left, replies)) if tokens is not None}

    @staticmethod
    def _quick_keys(game: str, seats: int, pid: str) -> list[str]:
        """The queue, then `pid`'s holder, token and gone sets (one slot)."""
        return [
            quick_key(game, seats),
            quick_holders(game, seats, pid),
            quick_tokens(game, seats, pid),
            quick_gone(game, seats, pid),
        ]


def _take_args(
    op: str, game: str, seats: int, pid: str = "", holder: str = "", claim: str = "", proc: str = ""
) -> list[Any]:
    """quick.lua's ARGV for 'q' (queue `pid` and take a group out if one is full), 'g' (take
    one out only), 'a' (`proc` is alive, then as 'g') or 'w' (who waits)."""
    return [
        op,
        pid,
        holder,
        seats,
        QUICK_TTL_S,
        quick_holders_prefix(game, seats),
        claim,
        quick_tokens_prefix(game, seats),
        quick_gone_prefix(game, seats),
        proc,
        QUICK_LIVE_MS,
        QUICK_DROP_MS,
    ]


def _group(reply: list[Any]) -> dict[str, QuickEntry]:
    """The group in quick.lua's reply to 'q', 'g' or 'a': each player taken out with what
    their entry carried."""
    flat = [x.decode() for x in reply]
    return {
        p: QuickEntry(tuple(tokens.split()), tuple(holders.split()), int(unqueues))
        for p, tokens, holders, unqueues in zip(flat[::4], flat[1::4], flat[2::4], flat[3::4], strict=True)
    }


def _left(reply: list[Any]) -> list[str] | None:
    """quick.lua's reply to 'r' or 'l': the claims of the entry that left, None if none did."""
    return [t.decode() for t in reply[1:]] if int(reply[0]) else None
