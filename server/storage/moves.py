"""The typed move pipe: one EVALSHA of ``move.lua`` per move, packed by hand, its reply decoded.

Three calls, one per kind of the script (see ``move.lua``):

- ``play``: an accepted move, already applied to the process's cached game;
- ``finish``: the player declares they are finished;
- ``reack``: a retried duplicate, re-acknowledged with the race's current version.

Each queues its command on the pipelined connection (every call of one
event-loop tick goes out in one write, replies come back in order: one round
trip per move) and calls ``on_reply`` with one of the typed replies of
``server.core.moves`` (``Applied``, ``Duplicate``, ``Refused``, ``Failed``) when
Redis answers. Only the arguments that change per move are packed per call;
the rest of the command, and of the progress frame the script publishes, is
built once per (race, player).

A player's first move (``play`` with n 0) creates their move log, after the start commit
gave the race's other keys their TTL: it is followed, in the same write, by ``log_ttl.lua``,
which gives the new log the race's TTL, so that no key of a running race lives forever
(every process dead for good). Once per player and race, never per move: the move script,
run on every move, is unchanged (docs/benchmarks.md).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Protocol

from protocol.messages import ErrorCode

from ..core import frames
from ..core.moves import Applied, Duplicate, Failed, MoveReply, Refused
from . import keys
from .positions import revealed_list
from .resp import ReplyError, ReplyLost, pack
from .scripts import LOG_TTL, MOVE

_REFUSALS = {
    b"race-not-running": ErrorCode.RACE_NOT_RUNNING,
    b"no-such-race": ErrorCode.NO_SUCH_RACE,
    b"not-in-race": ErrorCode.NOT_IN_RACE,
    b"game-over": ErrorCode.GAME_OVER,
    b"out-of-sync": ErrorCode.OUT_OF_SYNC,
}


def decode_reply(reply: Any, n_after: int = 0) -> MoveReply:
    """The script's raw reply (a frame, a list, or the exception the connection handed over)
    typed; `n_after` is the count after the move, for a move answered with its frame alone."""
    if type(reply) is bytes:
        # A move that leaves its player playing: the frame ends with the version (a uint32,
        # then "total" and its uint8, then "at") and the time (a uint64).
        return Applied(
            n_after, int.from_bytes(reply[-8:], "big"), int.from_bytes(reply[-24:-20], "big"), -1, reply
        )
    if type(reply) is list:
        tag = reply[0]
        if tag == b"ok":
            return Applied(reply[1], reply[2], reply[3], reply[4], reply[5])
        if tag == b"dup":
            _t, n, home, status, at, rev, ver = reply
            return Duplicate(n, home, status.decode(), at, revealed_list(rev.decode()), ver)
        code = _REFUSALS.get(tag)
        if code is not None:
            return Refused(code, reply[1] if len(reply) > 1 else None)
        return Failed(ValueError(f"unexpected move script reply {reply!r}"))
    if isinstance(reply, BaseException):
        return Failed(reply, unconfirmed=isinstance(reply, ReplyLost))
    return Failed(ValueError(f"unexpected move script reply {reply!r}"))


def _ignore(_reply: Any) -> None:
    pass


class PackedCaller(Protocol):
    """A pipelined connection (``resp.Pipe``, or ``cluster.ClusterPipe`` routing by `key`)."""

    def call_packed(self, packed: bytes, callback: Callable[[Any], None], key: str | None = None) -> None: ...


class MovePipe:
    def __init__(self, pipe: PackedCaller, stream_maxlen: int) -> None:
        self.pipe = pipe
        self.stream_maxlen = stream_maxlen
        self._heads: dict[tuple[str, str], tuple[bytes, bytes, bytes]] = {}

    def play(
        self,
        rid: str,
        pid: str,
        n: int,
        move: str,
        pos: bytes,
        home: int,
        won: bool,
        revealed: str,
        on_reply: Callable[[MoveReply], None],
    ) -> None:
        """Store move number `n` + 1: `pos` the compact position after it, `home` its cards home."""
        self._call(rid, pid, b"m", n, move, pos, home, won, revealed, on_reply)

    def finish(self, rid: str, pid: str, on_reply: Callable[[MoveReply], None]) -> None:
        """The player declares they are finished."""
        self._call(rid, pid, b"f", 0, "", b"", 0, False, "", on_reply)

    def reack(self, rid: str, pid: str, n: int, move: str, on_reply: Callable[[MoveReply], None]) -> None:
        """Re-acknowledge move `n` if it is the player's last one (a `Duplicate`), else refuse."""
        self._call(rid, pid, b"d", n, move, b"", 0, False, "", on_reply)

    def _call(
        self,
        rid: str,
        pid: str,
        kind: bytes,
        n: int,
        move: str,
        pos: bytes,
        home: int,
        won: bool,
        revealed: str,
        on_reply: Callable[[MoveReply], None],
    ) -> None:
        parts = self._heads.get((rid, pid))
        if parts is None:
            parts = self._head(rid, pid)
        head, tail, prog = parts
        mv = move.encode()
        rv = revealed.encode()
        ns = b"%d" % n
        hs = b"%d" % home
        # The progress frame up to its version (move.lua appends ver, total, at): built here
        # from what we know, so that Redis packs no table per move.
        prog = frames.progress_prefix(prog, n + 1, home, won) if kind == b"m" else b""
        # The RESP command, packed by hand: only these arguments change per move.
        packed = (
            b"%s$1\r\n%s\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n$1\r\n%s\r\n"
            b"$%d\r\n%s\r\n%s$%d\r\n%s\r\n"
        ) % (
            head,
            kind,
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
        rk = keys.race_key(rid)

        def done(reply: Any) -> None:
            if isinstance(reply, ReplyError) and str(reply).startswith("NOSCRIPT"):
                # Redis lost its script cache (restart, SCRIPT FLUSH): EVAL once, which reloads it.
                args = (
                    b"EVAL",
                    MOVE.source,
                    b"4",
                    rk,
                    keys.player_key(rid, pid),
                    keys.log_key(rid, pid),
                    keys.stream_key(rid),
                    kind,
                    n,
                    move,
                    pos,
                    home,
                    b"1" if won else b"0",
                    revealed,
                    rid,
                    pid,
                    keys.race_channel(rid),
                    self.stream_maxlen,
                    prog,
                )
                self.pipe.call_packed(pack(args), lambda r: on_reply(decode_reply(r, n + 1)), rk)
                if first:  # the log's TTL again: the one sent with the lost EVALSHA found no log
                    self._log_ttl(rid, pid)
                return
            on_reply(decode_reply(reply, n + 1))

        first = kind == b"m" and n == 0
        self.pipe.call_packed(packed, done, rk)
        if first:  # in the same write: the log this move creates gets its TTL right after it
            self._log_ttl(rid, pid)

    def _log_ttl(self, rid: str, pid: str) -> None:
        """Give `pid`'s move log the race's TTL (log_ttl.lua, by EVAL: it never misses the script
        cache). Its reply is not waited for: were it lost, the end commit's TTL still applies."""
        rk = keys.race_key(rid)
        self.pipe.call_packed(pack((b"EVAL", LOG_TTL.source, b"2", rk, keys.log_key(rid, pid))), _ignore, rk)

    def forget(self, rid: str, pids: Iterable[str]) -> None:
        """The race's room left this process: its players' command parts go (a race's players
        stay cached for its life here, not for the process's)."""
        for pid in pids:
            self._heads.pop((rid, pid), None)

    def _head(self, rid: str, pid: str) -> tuple[bytes, bytes, bytes]:
        """The constant parts of a player's move command and of its progress frame."""
        if len(self._heads) > 100_000:  # a bound, not an LRU: rebuilt on demand
            self._heads.clear()
        rk = keys.race_key(rid)
        head = (
            b"*19\r\n"
            + pack(
                (
                    b"EVALSHA",
                    MOVE.sha,
                    b"4",
                    rk,
                    keys.player_key(rid, pid),
                    keys.log_key(rid, pid),
                    keys.stream_key(rid),
                )
            )[len(b"*7\r\n") :]
        )
        tail = pack((rid, pid, keys.race_channel(rid), self.stream_maxlen))[len(b"*4\r\n") :]
        parts = (head, tail, frames.progress_head(rid, pid))
        self._heads[(rid, pid)] = parts
        return parts
