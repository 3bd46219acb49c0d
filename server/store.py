"""Redis: the key layout, the scripts, and every read and write of the server.

Redis is the truth (DESIGN.md §2); a server process keeps only caches. Every
key of one race carries the hash tag ``{race:ID}`` so a race lives in one
Redis Cluster slot and each script touches one slot. Keys outside races live
on their own and are never touched by the move script.

=================================  ======  ==============================================
key                                type    contents
=================================  ======  ==============================================
``{race:ID}``                      hash    race record: game total seats time_limit_s
                                           private host created seed commitment
                                           rules_version deal_version quick status ver
                                           starts_at deadline ended live spectators
                                           players (JSON seats: player, name, ready)
                                           ranking (JSON, once finished)
``{race:ID}:p:PID``                hash    a player's game (from the start): n home
                                           status at pos (compact position, see
                                           encode_position) last (last
                                           move) rev (its revealed cards) mt (its time)
``{race:ID}:log:PID``              list    move log, one "AT HOME MOVE" per move
``{race:ID}:ev``                   stream  public race events, id ``VER-0``, field m =
                                           the msgpack frame as sent; MAXLEN ~
``sess:SHA256(token)``             string  player id; TTL SESSION_TTL
``pl:{PID}``                       hash    name; TTL SESSION_TTL (renewed at hello)
``pl:{PID}:races``                 set     race ids where the player holds a seat
``quick:GAME:SEATS``               list    quick-match queue (player ids)
``races:timers``                   zset    race id -> next time the race must be looked
                                           at (starts_at in countdown, deadline running)
``races:public``                   zset    race id -> created, public unfinished races
``race:ID`` (pub/sub channel)              the race's events, as published frames
``player:PID`` (pub/sub channel)           notices for one player (quick-match seat)
=================================  ======  ==============================================

Lifetimes: a lobby expires after ``lobby_ttl_s`` without change; a started
race lives until its deadline plus a day; a finished race (seed, logs,
ranking) for ``finished_ttl_s``.

API for other features (all async):
- races: `create_race`, `load_race`, `load_races`, `commit`, `load_player`, `move_logs`,
  `events_since`, `public_races`, `replay`
- the move path: `move_call(...)` (callback style, pipelined, one EVALSHA)
- timers: `schedule`, `unschedule`, `due_races`
- sessions and players: `new_session`, `resume_session`, `player_races`,
  `add_seat`, `remove_seat`
- quick-match: `quick_push`, `quick_remove`
- `time_ms`, `ping`
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import redis.asyncio as aioredis
from redis.exceptions import NoScriptError

from protocol import rules
from protocol.rules.games import DRAW as _DRAW

from . import races as R
from .cluster import ClusterPipe, cold_client, is_cluster_url
from .config import Settings
from .resp import Pipe, ReplyError, pack

log = logging.getLogger("solrace.store")

_HERE = Path(__file__).parent


class Script:
    """A Lua script called by EVALSHA, reloaded on NOSCRIPT (e.g. after a Redis restart)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.source = (_HERE / f"{name}.lua").read_text()
        self.sha = hashlib.sha1(self.source.encode()).hexdigest()

    async def __call__(self, r: aioredis.Redis, keys: list[str], args: list[Any]) -> Any:
        try:
            return await r.evalsha(self.sha, len(keys), *keys, *args)
        except NoScriptError:
            return await r.eval(self.source, len(keys), *keys, *args)


MOVE = Script("move")
COMMIT = Script("commit")
LOAD = Script("load")
QUICK = Script("quick")


# --- keys --------------------------------------------------------------------------------


def race_key(rid: str) -> str:
    return "{race:" + rid + "}"


def stream_key(rid: str) -> str:
    return "{race:" + rid + "}:ev"


def player_key(rid: str, pid: str) -> str:
    return "{race:" + rid + "}:p:" + pid


def log_key(rid: str, pid: str) -> str:
    return "{race:" + rid + "}:log:" + pid


def race_channel(rid: str) -> str:
    return "race:" + rid


def player_channel(pid: str) -> str:
    return "player:" + pid


def session_key(token: str) -> str:
    return "sess:" + hashlib.sha256(token.encode()).hexdigest()


def profile_key(pid: str) -> str:
    return "pl:{" + pid + "}"


def seats_key(pid: str) -> str:
    return "pl:{" + pid + "}:races"


def quick_key(game: str, seats: int) -> str:
    return f"quick:{game}:{seats}"


TIMERS = "races:timers"
PUBLIC = "races:public"


def new_race_id() -> str:
    return "r" + secrets.token_hex(8)


def new_player_id() -> str:
    return "p" + secrets.token_hex(8)


def valid_race_id(rid: str) -> bool:
    """Race ids are ours ("r" + 16 hex); anything else is unknown (keeps keys clean)."""
    return len(rid) == 17 and rid[0] == "r" and all(c in "0123456789abcdef" for c in rid[1:])


# --- encoding of records --------------------------------------------------------------------


def _s(v: bytes | None) -> str | None:
    return v.decode() if v is not None else None


def _i(v: bytes | None) -> int | None:
    return int(v) if v not in (None, b"") else None


def _pairs(flat: list[bytes]) -> dict[bytes, bytes]:
    return dict(zip(flat[0::2], flat[1::2]))


def race_fields(r: R.Race) -> dict[str, Any]:
    """The race hash fields a commit writes (never `live`/`spectators`: scripts count those)."""
    return {
        "race": r.race,
        "game": r.game,
        "total": r.total,
        "seats": r.seats,
        "time_limit_s": r.time_limit_s,
        "private": int(r.private),
        "host": r.host,
        "created": r.created,
        "seed": r.seed,
        "commitment": r.commitment,
        "rules_version": r.rules_version,
        "deal_version": r.deal_version,
        "quick": int(r.quick),
        "sealed": int(r.sealed),
        "status": r.status,
        "starts_at": "" if r.starts_at is None else r.starts_at,
        "deadline": "" if r.deadline is None else r.deadline,
        "ended": "" if r.ended is None else r.ended,
        "players": json.dumps([{"player": p.player, "name": p.name, "ready": p.ready} for p in r.players]),
        "ranking": "" if r.ranking is None else json.dumps(r.ranking),
    }


def race_from_load(reply: list[Any]) -> tuple[int, R.Race | None]:
    """Decode the LOAD script's reply into (server time, Race or None)."""
    now = int(reply[0])
    if len(reply) < 2:
        return now, None
    h = _pairs(reply[1])
    r = R.Race(
        race=h[b"race"].decode(),
        game=h[b"game"].decode(),
        total=int(h[b"total"]),
        seats=int(h[b"seats"]),
        time_limit_s=int(h[b"time_limit_s"]),
        private=h[b"private"] == b"1",
        host=h[b"host"].decode(),
        created=int(h[b"created"]),
        seed=h[b"seed"].decode(),
        commitment=h[b"commitment"].decode(),
        rules_version=int(h[b"rules_version"]),
        deal_version=int(h[b"deal_version"]),
        quick=h.get(b"quick") == b"1",
        sealed=h.get(b"sealed") == b"1",
        status=h[b"status"].decode(),
        ver=int(h[b"ver"]),
        starts_at=_i(h.get(b"starts_at")),
        deadline=_i(h.get(b"deadline")),
        ended=_i(h.get(b"ended")),
        spectators=int(h.get(b"spectators") or 0),
    )
    ranking = h.get(b"ranking")
    r.ranking = json.loads(ranking) if ranking else None
    seats = json.loads(h[b"players"])
    states = {reply[i].decode(): _pairs(reply[i + 1]) for i in range(2, len(reply), 2)}
    for s in seats:
        p = R.Player(s["player"], s["name"], ready=s["ready"])
        p.status = R.READY if p.ready else R.WAITING
        st = states.get(p.player)
        if st:  # the game has started: the per-player hash is the truth
            p.n = int(st.get(b"n", 0))
            p.home = int(st.get(b"home", 0))
            p.status = st[b"status"].decode() if b"status" in st else p.status
            p.at = _i(st.get(b"at"))
        r.players.append(p)
    return now, r


def encode_position(g: rules.Game) -> bytes:
    """The compact stored position of a game (a few µs, vs ~25 µs for the text).

    Game id, NUL, then for each pile in canonical order: its face-down count,
    its length, its cards (faces 0..51), one byte each. The position text of
    RULES.md §0.4 is `position_text(data)`.
    """
    out: list[int] = []
    for d, p in zip(g.down, g.piles):
        out.append(d)
        out.append(len(p))
        out.extend(p)
    return g.game.id.encode() + b"\0" + bytes(out)


class PositionCache:
    """`encode_position` of one game as it moves, re-encoding only the piles a move touched.

    The compact position is written on every move; most of it does not
    change. `encode(move)` is called after `move` was played on the game: it
    re-encodes the piles that move can touch (a draw: the stock and the
    waste, or every tableau pile in Rouge et Noir; any other move: its source
    and its destination, whose face-down count a flip changes; and the stock
    whenever its length changed, by a draw or a refill — it only ever loses
    cards) and joins the cached rest. Anything it cannot place
    (no move given, a notation outside the game's parse table) re-encodes
    everything. The result is always byte for byte `encode_position(game)`
    (tests/server/test_server_redis.py checks it over random games).
    """

    __slots__ = ("game", "parts")

    def __init__(self, game: rules.Game) -> None:
        self.game = game
        self.parts: list[bytes] | None = None

    def encode(self, move: str | None = None) -> bytes:
        g = self.game
        parts = self.parts
        piles, down = g.piles, g.down
        gdef = g.game
        parsed = gdef.parse_cache.get(move) if (parts is not None and move is not None) else None
        if parsed is None:
            parts = [g.game.id.encode() + b"\0"]
            for d, p in zip(down, piles):
                parts.append(bytes((d, len(p))) + bytes(p))
            self.parts = parts
            return b"".join(parts)
        if parsed is _DRAW:
            touched = gdef.tab_idx if gdef.draw_to_tableau else (gdef.waste_idx,)
        else:
            touched = (parsed[0], parsed[2])
        st = gdef.stock_idx
        p = piles[st]
        if parts[st + 1][1] != len(p):  # the stock only ever loses cards: same length, same stock
            parts[st + 1] = bytes((down[st], len(p))) + bytes(p)
        for i in touched:
            p = piles[i]
            parts[i + 1] = bytes((down[i], len(p))) + bytes(p)
        return b"".join(parts)


def decode_position(data: bytes) -> rules.Game:
    gid, _, body = data.partition(b"\0")
    gdef = rules.GAMES[gid.decode()]
    piles: list[list[int]] = []
    down: list[int] = []
    i = 0
    for _name in gdef.pile_names:
        d, n = body[i], body[i + 1]
        piles.append(list(body[i + 2 : i + 2 + n]))
        down.append(d)
        i += 2 + n
    return rules.Game(gdef, piles, down)


def position_text(data: bytes) -> str:
    """RULES.md §0.4 position text of a stored position."""
    return decode_position(data).to_text()


def revealed_text(revealed: tuple[tuple[str, str], ...]) -> str:
    return " ".join(f"{pile}:{card}" for pile, card in revealed)


def revealed_list(text: str) -> list[tuple[str, str]]:
    return [tuple(x.split(":", 1)) for x in text.split()] if text else []  # type: ignore[misc]


_UINT8 = [bytes((i,)) if i < 128 else bytes((0xCC, i)) for i in range(256)]


def _mp_uint(i: int) -> bytes:
    """MessagePack encoding of a non-negative int (smallest form)."""
    if i < 256:
        return _UINT8[i]
    if i < 65536:
        return b"\xcd" + i.to_bytes(2, "big")
    return b"\xce" + i.to_bytes(4, "big")


def _mp_str(s: str) -> bytes:
    return msgspec.msgpack.encode(s)


class Conflict(Exception):
    """The race changed between load and commit: reload and retry."""


class Store:
    def __init__(self, url: str, settings: Settings) -> None:
        self.url = url
        self.settings = settings
        self.cluster = is_cluster_url(url)
        self._move_frames: dict[tuple[str, str], tuple[bytes, bytes]] = {}
        self.pipe: Pipe | ClusterPipe
        if self.cluster:
            # redis+cluster://: redis-py's cluster client and a slot-routed move pipe (server/cluster.py).
            self.redis = cold_client(url)
            self.pipe = ClusterPipe(url)
        else:
            # Cold paths: redis-py. decode_responses off: positions and frames are bytes.
            # A blocking pool: a burst of cold requests (hundreds of hellos at once) waits
            # for a free connection instead of failing with "Too many connections".
            pool = aioredis.BlockingConnectionPool.from_url(
                url, max_connections=settings.redis_pool, timeout=10
            )
            self.redis = aioredis.Redis(connection_pool=pool, decode_responses=False)
            # Hot path: one pipelined connection for EVALSHA of moves.
            self.pipe = Pipe(url)

    @property
    def bus_url(self) -> str | Callable[[], str]:
        """Where the pub/sub connection goes (in a cluster: any node, rotating on reconnect)."""
        return self.pipe.pubsub_url if isinstance(self.pipe, ClusterPipe) else self.url

    async def start(self) -> None:
        await self.redis.ping()
        for script in (MOVE, COMMIT, LOAD, QUICK):
            await self.redis.script_load(script.source)
        await self.pipe.connect()

    async def close(self) -> None:
        self.pipe.close()
        await self.redis.aclose()

    async def ping(self) -> bool:
        try:
            return bool(await self.redis.ping())
        except Exception:
            return False

    async def time_ms(self) -> int:
        sec, usec = await self.redis.time()
        return sec * 1000 + usec // 1000

    # --- races ------------------------------------------------------------------------

    async def load_race(self, rid: str) -> tuple[int, R.Race | None]:
        """(server time ms, the race or None). One round trip."""
        if not valid_race_id(rid):
            return await self.time_ms(), None
        reply = await LOAD(self.redis, [race_key(rid)], ["{race:" + rid + "}:p:"])
        return race_from_load(reply)

    async def commit(
        self,
        old_ver: int,
        race: R.Race,
        events: bytes | list[bytes],
        *,
        players: dict[str, dict[str, Any]] | None = None,
        ttl_ms: int = 0,
        extra_live: int | None = None,
    ) -> int:
        """Write `race` if its stored version is still `old_ver`; publish `events`.

        The events must be encoded with versions old_ver + 1, old_ver + 2, ...
        (the last one = `race.ver`). Raises Conflict if the race changed.
        Returns the new version.
        """
        if isinstance(events, bytes):
            events = [events]
        rid = race.race
        fields = race_fields(race)
        if extra_live is not None:
            fields["live"] = extra_live
        players = players or {}
        keys = [race_key(rid), stream_key(rid)] + [player_key(rid, pid) for pid in players]
        if ttl_ms:
            # The TTL applies to every key of the race, the logs and player hashes included.
            keys += [player_key(rid, p.player) for p in race.players if p.player not in players]
            keys += [log_key(rid, p.player) for p in race.players]
        args: list[Any] = [
            old_ver,
            race_channel(rid),
            self.settings.stream_maxlen,
            ttl_ms,
            len(events),
            *events,
            len(fields),
        ]
        for k, v in fields.items():
            args += [k, v]
        args.append(len(players))
        for pf in players.values():
            args.append(len(pf))
            for k, v in pf.items():
                args += [k, v]
        reply = await COMMIT(self.redis, keys, args)
        if reply[0] != b"ok":
            raise Conflict(f"race {rid} is at version {reply[1]}, not {old_ver}")
        return int(reply[1])

    async def load_races(self, rids: list[str]) -> list[R.Race | None | BaseException]:
        """Several races at once (the race list): one pipeline, or one call per race in a cluster.

        Each item is the race, None (no such race) or the exception of its read.
        """
        if self.cluster:
            # redis-py refuses EVALSHA in cluster pipelines; the races live on different nodes anyway.
            replies = await asyncio.gather(
                *(LOAD(self.redis, [race_key(rid)], ["{race:" + rid + "}:p:"]) for rid in rids),
                return_exceptions=True,
            )
        else:
            for _attempt in range(2):
                pipe = self.redis.pipeline(transaction=False)
                for rid in rids:
                    pipe.evalsha(LOAD.sha, 1, race_key(rid), "{race:" + rid + "}:p:")
                replies = await pipe.execute(raise_on_error=False)
                if not any(isinstance(r, NoScriptError) for r in replies):
                    break
                await self.redis.script_load(LOAD.source)  # Redis restarted: reload, then once more
        return [reply if isinstance(reply, BaseException) else race_from_load(reply)[1] for reply in replies]

    async def load_player(self, rid: str, pid: str) -> tuple[list[Any], dict[bytes, bytes]]:
        """Race status/deadline/total/game/ver and the player's game hash (the move cache loader)."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.hmget(race_key(rid), "status", "deadline", "total", "game", "ver", "players")
        pipe.hgetall(player_key(rid, pid))
        race, player = await pipe.execute()
        return race, player

    async def move_logs(self, race: R.Race) -> dict[str, list[tuple[int, int, str]]]:
        """Every player's move log as (at, home, move), oldest first."""
        pipe = self.redis.pipeline(transaction=False)
        for p in race.players:
            pipe.lrange(log_key(race.race, p.player), 0, -1)
        out = {}
        for p, entries in zip(race.players, await pipe.execute()):
            rows = []
            for e in entries:
                at, home, move = e.decode().split(" ", 2)
                rows.append((int(at), int(home), move))
            out[p.player] = rows
        return out

    async def positions(self, rid: str, pids: list[str]) -> list[tuple[int, bytes | None]]:
        """(n, compact position) of each player (spectator boards); see decode_position."""
        pipe = self.redis.pipeline(transaction=False)
        for pid in pids:
            pipe.hmget(player_key(rid, pid), "n", "pos")
        return [(int(n or 0), pos) for n, pos in await pipe.execute()]

    async def events_since(self, rid: str, since: int) -> list[bytes] | None:
        """Frames of the race events after version `since`, or None if the stream lost some."""
        entries = await self.redis.xrange(stream_key(rid), min=f"{since + 1}-0", max="+")
        if entries:
            first = int(entries[0][0].split(b"-")[0])
            if first != since + 1:
                return None
        else:
            # Nothing after `since`: fine if the client is up to date.
            ver = await self.redis.hget(race_key(rid), "ver")
            if ver is not None and int(ver) > since:
                return None
        return [fields[b"m"] for _id, fields in entries]

    async def spectators(self, rid: str, delta: int) -> None:
        await self.redis.hincrby(race_key(rid), "spectators", delta)

    async def public_races(self, limit: int) -> list[str]:
        ids = await self.redis.zrevrange(PUBLIC, 0, limit * 3)
        return [i.decode() for i in ids]

    async def index(self, rid: str, created: int | None) -> None:
        """Add (created given) or remove a race from the public index."""
        if created is None:
            await self.redis.zrem(PUBLIC, rid)
        else:
            await self.redis.zadd(PUBLIC, {rid: created})

    # --- timers (the deadline sweeper) ---------------------------------------------------

    async def schedule(self, rid: str, at: int | None) -> None:
        if at is None:
            await self.redis.zrem(TIMERS, rid)
        else:
            await self.redis.zadd(TIMERS, {rid: at})

    async def due_races(self, now: int, limit: int = 100) -> list[str]:
        ids = await self.redis.zrangebyscore(TIMERS, "-inf", now, start=0, num=limit)
        return [i.decode() for i in ids]

    # --- sessions and players ---------------------------------------------------------------

    async def new_session(self, name: str) -> tuple[str, str]:
        """A new identity: (player id, token). Only sha256(token) is stored."""
        pid = new_player_id()
        token = secrets.token_urlsafe(32)
        ttl = self.settings.session_ttl_s
        pipe = self.redis.pipeline(transaction=False)
        pipe.set(session_key(token), pid, ex=ttl)
        pipe.hset(profile_key(pid), mapping={"name": name})
        pipe.expire(profile_key(pid), ttl)
        await pipe.execute()
        return pid, token

    async def resume_session(self, token: str, name: str | None) -> tuple[str, str] | None:
        """(player id, name) for a valid token, renewing its TTL; None if unknown/expired."""
        key = session_key(token)
        pid = await self.redis.get(key)
        if pid is None:
            return None
        pid_s = pid.decode()
        ttl = self.settings.session_ttl_s
        pipe = self.redis.pipeline(transaction=False)
        pipe.expire(key, ttl)
        if name is not None:
            pipe.hset(profile_key(pid_s), "name", name)
        pipe.hget(profile_key(pid_s), "name")
        pipe.expire(profile_key(pid_s), ttl)
        pipe.expire(seats_key(pid_s), ttl)
        res = await pipe.execute()
        stored = res[2] if name is not None else res[1]
        return pid_s, (_s(stored) or name or "player")

    async def player_name(self, pid: str) -> str:
        return _s(await self.redis.hget(profile_key(pid), "name")) or "player"

    async def player_races(self, pid: str) -> list[str]:
        """Races where the player holds a seat and which are not finished (prunes the rest)."""
        ids = [i.decode() for i in await self.redis.smembers(seats_key(pid))]
        if not ids:
            return []
        pipe = self.redis.pipeline(transaction=False)
        for rid in ids:
            pipe.hmget(race_key(rid), "status", "players")
        live, gone = [], []
        for rid, (status, players) in zip(ids, await pipe.execute()):
            if status is None or status == b"finished" or pid.encode() not in (players or b""):
                gone.append(rid)
            else:
                live.append(rid)
        if gone:
            await self.redis.srem(seats_key(pid), *gone)
        return sorted(live)

    async def add_seat(self, pid: str, rid: str) -> None:
        pipe = self.redis.pipeline(transaction=False)
        pipe.sadd(seats_key(pid), rid)
        pipe.expire(seats_key(pid), self.settings.session_ttl_s)
        await pipe.execute()

    async def remove_seat(self, pid: str, rid: str) -> None:
        await self.redis.srem(seats_key(pid), rid)

    async def publish_player(self, pid: str, frame: bytes) -> None:
        await self.redis.publish(player_channel(pid), frame)

    # --- quick-match -------------------------------------------------------------------------

    async def quick_push(self, game: str, seats: int, pid: str) -> list[str]:
        reply = await QUICK(self.redis, [quick_key(game, seats)], [pid, seats, 3600])
        return [x.decode() for x in reply]

    async def quick_remove(self, game: str, seats: int, pid: str) -> None:
        await self.redis.lrem(quick_key(game, seats), 0, pid)

    # --- the move path -----------------------------------------------------------------------

    def move_call(
        self,
        rid: str,
        pid: str,
        kind: str,
        n: int,
        move: str,
        pos: bytes,
        home: int,
        won: bool,
        revealed: str,
        callback: Callable[[Any], None],
    ) -> None:
        """Queue the move script; `callback(reply)` runs when Redis answers.

        Every call made in one event-loop tick goes out in one write, and the
        replies come back in order: one round trip per move, pipelined. The
        reply is the script's list, a ReplyError or a ConnectionError; an
        applied move's reply ends with its progress frame, as published.
        `pos` is the compact position (`encode_position`).
        """
        frame = self._move_frames.get((rid, pid))
        if frame is None:
            frame = self._move_frame(rid, pid)
        head, tail, prog = frame
        mv = move.encode()
        rv = revealed.encode()
        ns = b"%d" % n
        hs = b"%d" % home
        if kind == "m":
            # The progress frame up to its version (move.lua appends ver, total, at): built
            # here from what we know, so that Redis packs no table per move.
            prog = b"%s%s\xa4home%s\xa6status%s\xa3ver\xce" % (
                prog,
                _mp_uint(n + 1),
                _mp_uint(home),
                b"\xa3won" if won else b"\xa7playing",
            )
        else:
            prog = b""
        # The RESP command, packed by hand: only these arguments change per move.
        packed = (
            b"%s$1\r\n%s\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n$1\r\n%s\r\n"
            b"$%d\r\n%s\r\n%s$%d\r\n%s\r\n"
        ) % (
            head,
            kind.encode(),
            len(ns),
            ns,
            len(mv),
            mv,
            len(pos),
            pos,
            len(hs),
            hs,
            b"1" if won else b"0",
            len(rv),
            rv,
            tail,
            len(prog),
            prog,
        )
        rk = "{race:" + rid + "}"

        def done(reply: Any) -> None:
            if isinstance(reply, ReplyError) and str(reply).startswith("NOSCRIPT"):
                # Redis lost its script cache (restart, SCRIPT FLUSH): EVAL once, which reloads it.
                args = (
                    b"EVAL",
                    MOVE.source,
                    b"4",
                    rk,
                    rk + ":p:" + pid,
                    rk + ":log:" + pid,
                    rk + ":ev",
                    kind,
                    n,
                    move,
                    pos,
                    home,
                    b"1" if won else b"0",
                    revealed,
                    rid,
                    pid,
                    race_channel(rid),
                    self.settings.stream_maxlen,
                    prog,
                )
                self.pipe.call_packed(pack(args), callback, rk)
                return
            callback(reply)

        self.pipe.call_packed(packed, done, rk)

    def _move_frame(self, rid: str, pid: str) -> tuple[bytes, bytes, bytes]:
        """The constant parts of a player's move command and of its progress frame."""
        if len(self._move_frames) > 100_000:  # a bound, not an LRU: rebuilt on demand
            self._move_frames.clear()
        rk = "{race:" + rid + "}"
        head = (
            b"*19\r\n"
            + pack((b"EVALSHA", MOVE.sha, b"4", rk, rk + ":p:" + pid, rk + ":log:" + pid, rk + ":ev"))[
                len(b"*7\r\n") :
            ]
        )
        tail = pack((rid, pid, race_channel(rid), self.settings.stream_maxlen))[len(b"*4\r\n") :]
        # msgpack map of 9: t, race, player, then n home status (per move), ver total at (Redis)
        prog = b"\x89\xa1t\xa8progress\xa4race" + _mp_str(rid) + b"\xa6player" + _mp_str(pid) + b"\xa1n"
        self._move_frames[(rid, pid)] = (head, tail, prog)
        return head, tail, prog
