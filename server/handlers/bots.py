"""Bots (docs/protocol.md §3 "Bots"): seat a bot in a lobby, and a bot for a lonely quick-match.

The server never plays: it mints the bot's identity and queues a request
(server/storage/bots.py); a `solrace bots` worker process (client/bots/service.py)
pops it and plays as an ordinary client. So a search bot never slows the
server's event loop, and the workers bound how many bots run and how much
CPU each move may take.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Awaitable, Callable, Sequence

from protocol import messages as m
from protocol.messages import ErrorCode, RaceStatus

from ..core import bots as B
from ..core.races import Race, RaceError
from ..core.session import Session
from ..retries import retried
from ..storage.bots import BotQueue, BotRequest
from .lobby import race_id
from .quick_match import QuickMatch
from .runtime import Runtime

log = logging.getLogger("solrace.bots")

# A worker reports its free slots every second while it waits for requests (and at
# once when it takes one); a report older than this is not counted.
WORKER_ALIVE_MS = 5000
DEFAULT_LEVEL = "greedy"
# A request no worker took in this time is dropped by the worker that finally pops it.
REQUEST_TTL_MS = 60_000
#: Bots one player may have asked for (`bot`) that are not yet in a started race: waiting
#: for a worker, or seated in a lobby. One more is refused with `no-bots`: else one guest
#: holds every worker's slot for the bot wait (10 min), lobby after lobby.
MAX_WAITING_BOTS_PER_PLAYER = 2
#: A bot asked for counts this long after its request even if it is not seated (yet): the
#: request may wait REQUEST_TTL_MS for a worker, and the bot then takes a moment to join.
ASKED_GRACE_MS = REQUEST_TTL_MS + 10_000
PENDING = "?"  # the bot of a member being asked for: not minted yet

#: `_asked`'s `note`: counts the requests about to be pushed against the asking player.
Note = Callable[[list[BotRequest]], Awaitable[None]]
#: What `_asked` runs to push bots: given `note`, returns the requests it pushed.
Send = Callable[[Note], Awaitable[list[BotRequest]]]


class NotQueued(Exception):
    """A push of bot requests failed, and they were then found not queued (`Bots._push`): no
    worker will play them. Raised from the push's own failure, answered as it would be."""

    def __init__(self, requests: list[BotRequest]) -> None:
        super().__init__(f"{len(requests)} bot request(s) not queued")
        self.requests = requests


def asked_key(pid: str) -> str:
    """``pl:{PID}:bots`` (zset): "RACE BOT" -> when asked (ms, Redis clock), the bots the
    player asked for with `bot` (BOT is PENDING+nonce while its request is being made); some
    may be in started races or gone since: `waiting_bots` sorts them out. Its TTL is the
    longest a bot may count, from the last `bot`."""
    return f"pl:{{{pid}}}:bots"


def waiting_bots(
    noted: Sequence[tuple[str, int]], loaded: dict[str, Race | None | BaseException], now: int
) -> tuple[list[str], list[str]]:
    """(the members still counted, the ones to forget) among those noted for a player
    ("RACE BOT", when asked), with their races as loaded (a race, None when gone, or the
    error of its read).

    Counted: the race is still in its lobby and the bot sits in it, or was asked for less
    than ASKED_GRACE_MS ago (its request waits for a worker, or the bot is joining). A race
    whose read failed counts: a refusal is safer than every slot taken while Redis stumbles."""
    still: list[str] = []
    gone: list[str] = []
    for member, at in noted:
        rid, _, bot = member.partition(" ")
        race = loaded.get(rid)
        if isinstance(race, BaseException):
            still.append(member)
        elif race is None or race.status != RaceStatus.LOBBY:
            gone.append(member)
        elif race.seat_of(bot) is not None or now - at < ASKED_GRACE_MS:
            still.append(member)
        else:
            gone.append(member)
    return still, gone


class Bots:
    def __init__(self, svc: Runtime, quick_match: QuickMatch) -> None:
        self.svc = svc
        self.quick_match = quick_match
        self.queue = BotQueue(svc.store.redis)
        self.waiting: set[tuple[str, str, int]] = set()  # (player, game, seats) with a fallback armed

    async def bot(self, s: Session, msg: m.Bot) -> m.Ok:
        rid = race_id(msg.race)
        now, race = await self.svc.store.load_race(rid)
        if race is None:
            raise RaceError(ErrorCode.NO_SUCH_RACE, "no such race")
        B.check_bot_seat(race, s.player)
        level = msg.level or DEFAULT_LEVEL
        sent = await self._asked(
            s.player,
            rid,
            now,
            lambda note: self._send_bots(
                1, "race", level, race.game, now, race=rid, invite=race.invite, note=note
            ),
        )
        if not sent:
            raise RaceError(ErrorCode.NO_BOTS, "no bot worker has a free slot: retry later")
        return m.Ok(rid=msg.rid)

    async def _asked(self, player: str, rid: str, now: int, send: Send) -> list[BotRequest]:
        """`send` a bot for the lobby `rid`, counted against `player` (`_count_asked`: refused
        with `no-bots` past MAX_WAITING_BOTS_PER_PLAYER); the requests it made are noted.

        `send` notes its requests (the `note` it is given) *before* it pushes them, in place
        of the pending member: a push whose reply is lost (Redis failed after the script ran)
        may have queued the bot, which must count. Only the requests `send` says it did not
        push (refused, or found not pushed after a failure) are forgotten; after a failure
        every other request noted stays counted (it stops counting ASKED_GRACE_MS after it
        was asked for, if the bot never sits: `waiting_bots`)."""
        key = asked_key(player)
        pending = f"{rid} {PENDING}{secrets.token_hex(6)}"
        await self._count_asked(key, pending, now)
        redis = self.svc.store.redis
        noted: list[BotRequest] = []

        async def note(requests: list[BotRequest]) -> None:
            pipe = redis.pipeline(transaction=False)  # one key: in order
            for r in requests:
                pipe.zadd(key, {f"{rid} {r.player}": now})
            pipe.zrem(key, pending)
            await pipe.execute()
            noted.extend(requests)

        # Which noted requests will not come: those not sent; after a failure, only those found
        # not queued (the others may have been).
        unsent: list[BotRequest] = []
        try:
            sent = await send(note)
            unsent = [r for r in noted if r not in sent]
        except NotQueued as exc:
            unsent = exc.requests
            raise
        finally:
            await redis.zrem(key, pending, *(f"{rid} {r.player}" for r in unsent))
        return sent

    async def _count_asked(self, key: str, pending: str, now: int) -> None:
        """Note `pending` among the bots the player asked for, then count those not yet in a
        started race (over every server process, in Redis): refuse it (`no-bots`, nothing
        kept) when MAX_WAITING_BOTS_PER_PLAYER were already. Noted before counting: of two
        `bot` at once by one player (two connections or processes), each sees the other
        (never both past the limit)."""
        redis = self.svc.store.redis
        ttl_ms = ASKED_GRACE_MS + self.svc.settings.bot_wait_s * 1000
        pipe = redis.pipeline(transaction=False)
        pipe.zadd(key, {pending: now})
        pipe.pexpire(key, ttl_ms)
        pipe.zrange(key, 0, -1, withscores=True)
        noted = [
            (x.decode() if isinstance(x, bytes) else str(x), int(at)) for x, at in (await pipe.execute())[2]
        ]
        others = [(x, at) for x, at in noted if x != pending]
        rids = sorted({x.partition(" ")[0] for x, _ in others})
        races = await self.svc.store.load_races(rids) if rids else []
        still, gone = waiting_bots(others, dict(zip(rids, races, strict=True)), now)
        refused = len(still) >= MAX_WAITING_BOTS_PER_PLAYER
        forget = gone + [pending] if refused else gone
        if forget:
            await redis.zrem(key, *forget)
        if refused:
            raise RaceError(
                ErrorCode.NO_BOTS,
                f"you have {MAX_WAITING_BOTS_PER_PLAYER} bots waiting for a race to start already: "
                "start that race, or wait for them to leave",
            )

    async def send_bots(
        self,
        count: int,
        kind: str,
        level: str,
        game: str,
        now: int,
        *,
        race: str = "",
        invite: str = "",
        seats: int = 2,
    ) -> bool:
        """Queue `count` bot requests for the workers, all or none: only if the free slots
        the workers reported cover them beside the requests already waiting (one script,
        so that no two servers promise one slot twice). False: no bot is queued."""
        if count <= 0:
            return True
        return bool(
            await self._send_bots(count, kind, level, game, now, race=race, invite=invite, seats=seats)
        )

    async def _send_bots(
        self,
        count: int,
        kind: str,
        level: str,
        game: str,
        now: int,
        *,
        race: str = "",
        invite: str = "",
        seats: int = 2,
        note: Note | None = None,
    ) -> list[BotRequest]:
        """`send_bots` (count > 0): the requests queued, or [] (none queued). `note`: run
        with the requests before they are pushed (`_asked`)."""
        if await self.queue.free_slots(now, WORKER_ALIVE_MS) < count:
            return []  # mint no identity for nothing
        requests = [
            await self._request(kind, level, game, now, race=race, invite=invite, seats=seats)
            for _ in range(count)
        ]
        if note is not None:
            await note(requests)
        if await self._push(requests, lambda: self.queue.reserve(requests, now, WORKER_ALIVE_MS)):
            return requests
        await self._forget(requests)  # another request took the slot meanwhile
        return []

    async def _push(self, requests: list[BotRequest], push: Callable[[], Awaitable[bool]]) -> bool:
        """`push()` the requests (all or none): True if it did, False if it refused. Should it
        raise, its reply may be what was lost: True if they are found pushed (the bots come,
        and the player is told so). Found not pushed, their bot identities are forgotten and
        `NotQueued` is raised from the failure; the failure itself if that cannot be told."""
        try:
            return await push()
        except Exception as exc:
            found = await self._were_pushed(requests)
            if found:
                return True
            if found is None:
                raise
            try:
                await self._forget(requests)
            except Exception:  # they lapse with their TTL
                log.warning("bot identities of requests not queued were not forgotten", exc_info=True)
            raise NotQueued(requests) from exc

    async def _were_pushed(self, requests: list[BotRequest]) -> bool | None:
        """After a push of `requests` that raised: whether it pushed them (all or none: one
        script, or one LPUSH of one), None if that cannot be read (retried a few times)."""
        return await retried(
            lambda: self.queue.pushed(requests[0]),
            f"could not tell whether the bot requests for {requests[0].race or requests[0].game} were queued",
            log,
        )

    async def _forget(self, requests: list[BotRequest]) -> None:
        """Forget the bot identities minted for requests known not queued: no worker will play them."""
        for r in requests:
            await self.queue.forget_bot(r.player, r.token)

    async def send_rematch_bot(
        self, host: str, level: str, game: str, now: int, *, race: str, invite: str
    ) -> bool:
        """Queue the request of a rematch's bot (replacing one of the old race) whatever the
        free slots: it comes when a worker has a slot, or the request expires. It counts
        against the rematch's `host` like a `bot` of theirs: False (nothing queued) when
        the host has MAX_WAITING_BOTS_PER_PLAYER bots waiting already."""

        async def push(note: Note) -> list[BotRequest]:
            request = await self._request("race", level, game, now, race=race, invite=invite)
            await note([request])

            async def lpush() -> bool:
                await self.queue.push(request)
                return True

            await self._push([request], lpush)
            return [request]

        try:
            await self._asked(host, race, now, push)
        except RaceError as exc:
            if exc.code != ErrorCode.NO_BOTS:
                raise
            return False
        return True

    async def _request(
        self, kind: str, level: str, game: str, now: int, *, race: str = "", invite: str = "", seats: int = 2
    ) -> BotRequest:
        """A new bot identity, and its request for a worker."""
        st = self.svc.settings
        ttl_s = st.bot_wait_s + st.time_limit_max_s + 3600
        pid, token = await self.queue.new_bot(level, B.bot_name(level), ttl_s)
        return BotRequest(
            kind=kind,
            level=level,
            token=token,
            player=pid,
            game=game,
            race=race,
            invite=invite,
            seats=seats,
            expires=now + REQUEST_TTL_MS,
        )

    async def quick(self, s: Session, msg: m.Quick) -> None:
        """Quick-match (server/handlers/quick_match.py); then, if the player still waits alone after
        QUICK_BOT_AFTER_S, bots take the empty seats."""
        await self.quick_match.quick(s, msg)
        after = self.svc.settings.quick_bot_after_s
        seats = msg.seats or m.DEFAULT_SEATS  # as quick-match took it
        key = (s.player, msg.game, seats)
        if after > 0 and (msg.game, seats) in s.quick and key not in self.waiting:
            self.waiting.add(key)
            self.svc.spawn(self._quick_fallback(key, after))

    async def _quick_fallback(self, key: tuple[str, str, int], after_s: int) -> None:
        pid, game, seats = key
        try:
            await asyncio.sleep(after_s)
            # While the workers have too few free slots (busy, or starting), look again every
            # second; and after a failure (a Redis blip): ended by it, the fallback would leave
            # the player waiting alone for good (nothing arms it again while they wait).
            for _ in range(self.svc.settings.bot_wait_s):
                try:
                    if await self._quick_bots(pid, game, seats):
                        return
                except Exception as exc:
                    self.svc.failed(f"could not ask for bots for {pid}'s quick-match", exc)
                await asyncio.sleep(1)
        finally:
            self.waiting.discard(key)

    async def _quick_bots(self, pid: str, game: str, seats: int) -> bool:
        """Ask for the bots that fill `pid`'s quick-match group: True once asked for, or once
        the player no longer waits (seated, or gone); False if the workers have no free slots.
        (A try that failed after its requests were queued is made again only while the player
        still waits: at worst one bot too many, which leaves the queue after its wait.) Only
        the entries a group is formed of count: not those of a server process that died
        (server/handlers/quick_match.py), which would leave the group a bot short for good."""
        queued, alive = await self.svc.store.quick_waiting(game, seats, pid)
        if not queued:
            return True
        now = await self.svc.store.time_ms()
        needed = B.quick_bots_needed(seats, alive)
        return await self.send_bots(needed, "quick", "greedy", game, now, seats=seats)
