"""Players' games in a race as stored: the move cache's loader, move logs (whole, or read on for
the spectator boards), the event stream."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..core import races as R
from .keys import log_key, player_key, race_key, stream_key
from .parts import StorePart
from .positions import log_move, replay
from .records import text_or_none
from .scripts import SPECTATOR_LOGS


@dataclass(slots=True)
class PlayerGame:
    """A player's stored game in a started race: the player hash and the log after its snapshot."""

    n: int  # moves made
    home: int  # cards home
    status: str
    pos: bytes  # compact position snapshot (positions.encode_position) ...
    since: list[bytes]  # ... and the move log entries after it
    pn: int | None  # the move count of the snapshot (None: stored before snapshots, `pos` is at `n`)
    last: str  # the last move applied
    dl: int | None = None  # a berserk player's own deadline (ms), earlier than the race's

    def game(self) -> Any:
        return replay(self.pos, self.since)


@dataclass(slots=True)
class PlayerLoad:
    """What the move cache needs to (re)load a player: the race's status, the seat, the game."""

    status: str | None  # None: no such race
    seated: bool
    game: PlayerGame | None  # None before the start


def _player_game(h: dict[bytes, bytes], since: list[bytes]) -> PlayerGame | None:
    """The hash and the log entries after its snapshot (`pn`); the log is the truth: a move
    that landed between the two reads is in `since` and not yet in the hash's fields."""
    if not h:
        return None
    n, home, last = int(h[b"n"]), int(h.get(b"home") or 0), (h.get(b"last") or b"").decode()
    if since:
        n = int(h.get(b"pn") or 0) + len(since)
        _at, home_s, move = since[-1].split(b" ", 2)
        home, last = int(home_s), move.decode()
    pn = int(h[b"pn"]) if b"pn" in h else None
    dl = int(h[b"dl"]) if b"dl" in h else None
    return PlayerGame(
        n=n, home=home, status=h[b"status"].decode(), pos=h[b"pos"], since=since, pn=pn, last=last, dl=dl
    )


class PlayerGames(StorePart):
    async def load_player(self, rid: str, pid: str) -> PlayerLoad:
        """The race's status, whether `pid` sits in it, and their stored game (the move cache loader)."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.hmget(race_key(rid), "status", "players")
        pipe.hgetall(player_key(rid, pid))
        (status, players), player = await pipe.execute()
        since = await self._since_snapshot(rid, pid, player)
        return PlayerLoad(
            status=text_or_none(status),
            seated=pid.encode() in (players or b""),
            game=_player_game(player, since),
        )

    async def _since_snapshot(self, rid: str, pid: str, h: dict[bytes, bytes]) -> list[bytes]:
        """The move log entries after the position snapshot of player hash `h`."""
        if not h or b"pos" not in h or b"pn" not in h:
            return []  # (a game stored before snapshots: its `pos` is at `n`, nothing to replay)
        entries: list[bytes] = await self.redis.lrange(log_key(rid, pid), int(h.get(b"pn") or 0), -1)
        return entries

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

    async def logs_since(
        self, rid: str, pids: list[str], have: list[int], most: int
    ) -> tuple[int, list[tuple[int, list[str], str]]]:
        """The server time just after reading them, and for each player (n, the moves of their
        log after the first `have[i]`, at most `most` of them, status), in one atomic call
        (spectator boards)."""
        if not pids:
            return await self.time_ms(), []
        keys = [player_key(rid, pid) for pid in pids] + [log_key(rid, pid) for pid in pids]
        reply = await SPECTATOR_LOGS(self.redis, keys, [*have, most])
        out: list[tuple[int, list[str], str]] = []
        for i in range(1, len(reply), 3):
            n, entries, status = reply[i : i + 3]
            status = status.decode() if isinstance(status, bytes) else str(status)
            out.append((int(n or 0), [log_move(e) for e in entries], status))
        return int(reply[0]), out

    async def events_since(self, rid: str, since: int, limit: int | None = None) -> list[bytes] | None:
        """Frames of the race events after version `since`; None if the stream lost some, or over `limit`."""
        count = None if limit is None else limit + 1
        key, start = stream_key(rid), f"{since + 1}-0"
        entries = await self.redis.xrange(key, start, "+", count)
        if not entries:
            # Nothing after `since`: fine if the client is up to date.
            ver = await self.redis.hget(race_key(rid), "ver")
            if ver is None or int(ver) <= since:
                return []
            # A version and its stream entry are written together: an event that landed
            # between the two reads is in the stream now, unless the stream lost it.
            entries = await self.redis.xrange(key, start, "+", count)
            if not entries:
                return None
        if limit is not None and len(entries) > limit:
            return None
        if int(entries[0][0].split(b"-")[0]) != since + 1:
            return None
        return [fields[b"m"] for _id, fields in entries]
