"""The asyncio client: one WebSocket connection to a solrace server.

Design:

* **One reader task owns all state.** Every inbound frame is decoded and
  applied (boards, race versions, snapshots) by the reader, in frame order,
  *before* the waiting request is woken. So a request's reply and the events
  around it can never be applied out of order, and request coroutines only
  wait for a future.
* **Requests** carry a fresh `rid`; the reply (or `error`) with that `rid`
  resolves the request's future. An `error` becomes `ServerError` (or its
  subclass `IllegalMoveError`). Timeouts use `loop.call_later` on the future
  rather than `asyncio.wait_for`, which keeps the move → ack path lean.
* **Events** (everything without a `rid` of ours: `progress`, `race`, `start`,
  `end`, `boards`, unsolicited `state`/`error`, plus the library's own
  `Disconnected`/`Reconnected`) go to one buffer. `events()` iterates it,
  `wait_for()` takes the first matching event out of it (earlier events that
  do not match stay for other readers), so an event that arrived *before* the
  call is still found — no race between "send ready" and "wait for start".
* **Boards.** Each race the player plays has a `Board` updated from `start`,
  acks (`board.apply_move`) and `state`; a mismatch (or a server `view` that
  differs) triggers a resync, which replaces the board with the server's.
* **Versions.** The last `ver` seen per race is tracked; a jump of more than
  one schedules `resync(race, since=last)`, whose missed events are emitted
  as events (those not yet seen).
* **Servers** (failover): `connect` takes one URL or several, for server
  processes that share one Redis. A URL whose host name resolves to several
  addresses counts as one endpoint per address (resolved again on every
  round, each connected to by address with the URL's host name in the
  request; through a configured proxy the name is left to the proxy). A
  round tries the endpoints in turn: `open()` starts with the first URL;
  after a lost connection the round starts with the endpoint after the one
  that was lost, and the lost one comes last. A refused or timed-out
  endpoint (`timeout` seconds each) passes the turn to the next; `bad-token`
  or `bad-version` ends the round (every process would say the same).
  `open()` makes one round and raises `Unreachable` (what each endpoint
  said) if nothing answered.
* **Reconnect** (`reconnect=True`): on a lost connection the client makes
  rounds over the endpoints, with exponential backoff and full jitter
  between rounds (`backoff_base` doubling up to `backoff_max`), says hello
  with its token on whichever process answers first -- the session lives in
  Redis, so any process resumes it -- resends every unacknowledged move with
  the same `n` (the server acks a duplicate without applying it twice),
  re-spectates, and resyncs each race. Other requests in flight when the
  connection drops fail with `Disconnected` (they may not be idempotent:
  `create`, `quick`). `url` is the URL of the current connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import itertools
import logging
import random
import socket
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Coroutine, Generator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import msgspec
import websockets
from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI
from websockets.proxy import get_proxy
from websockets.uri import parse_uri

from protocol import messages as m

from .board import Board, ViewMismatch

__all__ = [
    "Client",
    "ConnectionLost",
    "Disconnected",
    "Endpoint",
    "IllegalMoveError",
    "Reconnected",
    "ServerError",
    "Unreachable",
    "connect",
    "endpoints",
    "event_kind",
]

log = logging.getLogger("solrace.client")

T = TypeVar("T")

#: Frames from the server can be large (replays, race lists); the server is trusted.
MAX_INBOUND = 16 * 1024 * 1024


class ServerError(Exception):
    """An `error` reply. `code` is the stable protocol code (docs/protocol.md §6)."""

    def __init__(self, error: m.Error) -> None:
        super().__init__(f"{error.code}: {error.message}")
        self.error = error
        self.code = error.code
        self.message = error.message
        self.field = error.field
        self.reason = error.reason  # illegal-move: the rules engine's code
        self.n = error.n  # out-of-sync: the server's move count
        self.retry_ms = error.retry_ms
        self.supported = error.supported


class IllegalMoveError(ServerError):
    """`illegal-move`: the rules refused the move; `.reason` says why."""


class Disconnected(ConnectionError):
    """The connection is gone (and is not being re-established)."""


class Unreachable(Disconnected):
    """No endpoint answered a round of connection attempts.

    `failures` holds, per endpoint tried, what went wrong (the last one is
    also the exception's `__cause__`).
    """

    def __init__(self, failures: list[tuple[Endpoint, BaseException]]) -> None:
        tried = "; ".join(f"{ep}: {_describe(exc)}" for ep, exc in failures) or "no server URL"
        super().__init__(f"no server answered ({tried})")
        self.failures = failures


def _describe(exc: BaseException) -> str:
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


@dataclass(frozen=True)
class Endpoint:
    """One place to connect to: a server URL and, when its host name resolves to
    several addresses, the one address to use (`host`, `port`); None: the URL as is."""

    url: str
    host: str | None = None
    port: int | None = None

    def __str__(self) -> str:
        return self.url if self.host is None else f"{self.url} at {self.host}"


async def endpoints(urls: Sequence[str]) -> list[Endpoint]:
    """The endpoints of `urls`, in order: one per URL, or one per address of a
    URL whose host name resolves to several (in the resolver's order).

    A URL that cannot be parsed or resolved stays whole: connecting to it
    reports the error. Through a configured proxy the name is the proxy's
    business, so the URL stays whole too.
    """
    loop = asyncio.get_running_loop()
    out: list[Endpoint] = []
    for url in urls:
        try:
            uri = parse_uri(url)
        except InvalidURI:
            out.append(Endpoint(url))
            continue
        if _is_address(uri.host) or get_proxy(uri) is not None:
            out.append(Endpoint(url))
            continue
        try:
            infos = await loop.getaddrinfo(uri.host, uri.port, type=socket.SOCK_STREAM)
        except OSError:
            out.append(Endpoint(url))
            continue
        addresses = list(dict.fromkeys(str(info[4][0]) for info in infos))
        if len(addresses) <= 1:
            out.append(Endpoint(url))
        else:
            out.extend(Endpoint(url, address, uri.port) for address in addresses)
    return out


def _is_address(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


@dataclass(frozen=True)
class ConnectionLost:
    """Event: the connection dropped; with `reconnect=True` a retry follows."""

    kind = "disconnected"
    code: int | None
    reason: str


@dataclass(frozen=True)
class Reconnected:
    """Event: a new connection is up, the identity resumed, races resynced."""

    kind = "reconnected"
    attempts: int


_TAGS: dict[type, str] = {cls: cls.__struct_config__.tag for cls in m.SERVER_TYPES}  # type: ignore[misc]


def event_kind(ev: object) -> str:
    """The kind of an event: the wire tag (`"progress"`) or the library's own."""
    tag = _TAGS.get(type(ev))
    if tag is not None:
        return tag
    kind = getattr(ev, "kind", None)
    return kind if isinstance(kind, str) else type(ev).__name__


# Events that carry a race version.
_VERSIONED = (m.RaceSnapshot, m.Started, m.Progress, m.End)


class Client:
    """A connection to a solrace server. Use `connect(...)`; see the package doc."""

    def __init__(
        self,
        url: str | Sequence[str],
        *,
        name: str | None = None,
        token: str | None = None,
        reconnect: bool = False,
        timeout: float = 10.0,
        backoff_base: float = 0.05,
        backoff_max: float = 5.0,
        max_reconnect_attempts: int | None = None,
        max_events: int = 100_000,
    ) -> None:
        self.urls: list[str] = [url] if isinstance(url, str) else list(url)
        if not self.urls:
            raise ValueError("connect: no server URL")
        #: The URL of the current (or last) connection.
        self.url = self.urls[0]
        #: The endpoint of the current (or last) connection.
        self.endpoint: Endpoint | None = None
        self.name: str | None = name
        self.token: str | None = token
        self.player: str | None = None
        self.welcome: m.Welcome | None = None
        self.limits: dict[str, int] = {}
        self.reconnect = reconnect
        self.timeout = timeout
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self.max_reconnect_attempts = max_reconnect_attempts
        #: Per race this client plays: its own board.
        self.boards: dict[str, Board] = {}
        #: Latest snapshot per race known to this client (updated by events).
        self.races_seen: dict[str, m.RaceSnapshot] = {}
        #: Last race version seen per race.
        self.versions: dict[str, int] = {}
        self.spectating: set[str] = set()
        # Private races' invites (from a link, or handed to us as a player): sent
        # again with every request that needs one, resyncs after a reconnect included.
        self.invites: dict[str, str] = {}
        #: Estimated server clock minus local clock, ms (from `ping`).
        self.clock_offset_ms: float | None = None

        self._ws: ClientConnection | None = None
        self._reader: asyncio.Task[None] | None = None
        self._reconnector: asyncio.Task[None] | None = None
        self._rids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[Any]] = {}
        # rid -> (race, n, move, view) of moves in flight, for resending.
        self._moves: dict[int, tuple[str, int, str, bool]] = {}
        # rid -> race of `finish` requests: their `ok` carries the race version.
        self._finishes: dict[int, str] = {}
        self._move_locks: dict[str, asyncio.Lock] = {}
        self._missing: dict[str, set[int]] = {}
        self._resyncing: set[str] = set()
        self._events: deque[object] = deque(maxlen=max_events)
        self._waiters: list[asyncio.Future[None]] = []
        self._connected = asyncio.Event()
        self._closing = False
        self._closed = False
        self._background: set[asyncio.Task[Any]] = set()

    # -- lifecycle -------------------------------------------------------------------

    async def __aenter__(self) -> Client:
        await self.open()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def __await__(self) -> Generator[Any, None, Client]:  # `c = await connect(url)` works too
        return self._open_and_return().__await__()

    async def _open_and_return(self) -> Client:
        await self.open()
        return self

    async def open(self) -> None:
        """Connect and say hello: one round over the endpoints, first URL first.

        Raises `ServerError` for e.g. `bad-token` (or when every server that
        answered refused the hello), `Unreachable` when none answered.
        """
        await self._connect_round(after=None)

    async def close(self) -> None:
        """Close the connection; pending requests fail with `Disconnected`."""
        self._closing = True
        if self._reconnector is not None:
            self._reconnector.cancel()
            with contextlib.suppress(BaseException):
                await self._reconnector
        for task in list(self._background):
            task.cancel()
        if self._ws is not None:
            with contextlib.suppress(Exception):
                await self._ws.close()
        if self._reader is not None:
            with contextlib.suppress(BaseException):
                await self._reader
        self._mark_closed()

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def connected(self) -> bool:
        return self._connected.is_set()

    async def _connect_round(self, after: Endpoint | None) -> m.Welcome:
        """Try each endpoint once, starting after `after` (which then comes last)."""
        candidates = await endpoints(self.urls)
        if after is not None and after in candidates:
            i = candidates.index(after)
            candidates = candidates[i + 1 :] + candidates[: i + 1]
        failures: list[tuple[Endpoint, BaseException]] = []
        refused: ServerError | None = None
        for ep in candidates:
            try:
                return await self._connect_to(ep)
            except ServerError as exc:
                if exc.code in (m.ErrorCode.BAD_TOKEN, m.ErrorCode.BAD_VERSION):
                    raise  # every process shares the sessions and the version
                failures.append((ep, exc))
                refused = exc
            except (
                OSError,
                TimeoutError,
                InvalidHandshake,
                InvalidURI,
                ConnectionClosed,
                m.ProtocolError,
            ) as exc:
                log.info("cannot connect to %s: %s", ep, _describe(exc))
                failures.append((ep, exc))
        if refused is not None:
            raise refused  # a server answered: its reason says more than "unreachable"
        raise Unreachable(failures) from (failures[-1][1] if failures else None)

    async def _connect_to(self, ep: Endpoint) -> m.Welcome:
        """Open a socket to `ep`, hello (with the token if we have one), start the reader."""
        address: dict[str, Any] = {} if ep.host is None else {"host": ep.host, "port": ep.port}
        ws = await websockets.connect(
            ep.url,
            compression=None,
            max_size=MAX_INBOUND,
            open_timeout=self.timeout,
            ping_interval=20,
            **address,
        )
        try:
            hello = m.Hello(v=m.PROTOCOL_VERSION, token=self.token, name=self.name)
            await ws.send(m.encode(hello))
            async with asyncio.timeout(self.timeout):
                reply = m.decode_server(await ws.recv(decode=False))
            if isinstance(reply, m.Error):
                raise ServerError(reply)
            if not isinstance(reply, m.Welcome):
                raise m.ProtocolError(m.ErrorCode.BAD_MESSAGE, f"expected welcome, got {event_kind(reply)}")
        except BaseException:
            await ws.close()
            raise
        self._ws = ws
        self.url, self.endpoint = ep.url, ep
        self.welcome = reply
        self.player, self.token, self.name = reply.player, reply.token, reply.name
        self.limits = reply.limits
        for race in reply.races:
            self.boards.setdefault(race, Board(race=race))
        self._connected.set()
        self._reader = asyncio.create_task(self._read(ws), name=f"solrace-reader-{self.player}")
        return reply

    # -- reading ---------------------------------------------------------------------

    async def _read(self, ws: ClientConnection) -> None:
        try:
            async for frame in ws:
                if isinstance(frame, str):
                    log.warning("text frame from server ignored")
                    continue
                try:
                    msg = m.decode_server(frame)
                except m.ProtocolError as exc:
                    log.warning("undecodable frame from server: %s", exc)
                    continue
                self._dispatch(msg)
        except ConnectionClosed:
            pass
        except Exception:  # a bug in dispatch must not leave requests hanging silently
            log.exception("client reader failed")
        finally:
            # Also reached when dispatch failed: never leave a socket behind.
            with contextlib.suppress(Exception):
                await ws.close()
            code, reason = ws.close_code, ws.close_reason or ""
            self._on_disconnect(code, reason)

    def _dispatch(self, msg: m.ServerMessage) -> None:
        rid = msg.rid
        fut = self._pending.pop(rid, None) if rid is not None else None
        # `type(msg) is` rather than isinstance: exact and cheapest on the move path.
        if type(msg) is m.Ack:
            if fut is None or rid is None:
                return  # a second reply to a resent move, or after its timeout
            self._moves.pop(rid, None)
            self._on_ack(msg)
        elif type(msg) is m.Progress:
            if self._note_version(msg.race, msg.ver):
                self._on_progress(msg)
        elif type(msg) is m.Error:
            if rid is not None:
                sent = self._moves.pop(rid, None)
                self._finishes.pop(rid, None)
                if sent is not None and msg.code == m.ErrorCode.OUT_OF_SYNC and msg.n is not None:
                    board = self.boards.get(sent[0])
                    if board is not None:
                        # The server's count is the truth (it may even be lower,
                        # after Redis lost a tail): the state that follows is
                        # adopted because it is not older than this.
                        board.n = msg.n
        elif type(msg) is m.RaceSnapshot:
            if self._note_version(msg.race, msg.ver) or fut is not None:
                self._on_snapshot(msg)
        elif type(msg) is m.Started:
            self._note_version(msg.race, msg.ver)
            self._on_started(msg)
        elif type(msg) is m.End:
            self._note_version(msg.race, msg.ver)
            self._on_end(msg)
        elif type(msg) is m.State:
            self._on_state(msg)
        elif type(msg) is m.Ok and rid is not None:
            race = self._finishes.pop(rid, None)
            if race is not None and msg.ver is not None:
                self._note_version(race, msg.ver)
        if fut is not None:
            if not fut.done():
                fut.set_result(msg)
        else:
            self._emit(msg)

    # -- state updates (all run in the reader) -----------------------------------------

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
        self._schedule_resync(race, since=last)
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
            if ack.n != board.n + 1 or board.view is None:
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
        if snap is not None:
            for p in snap.players:
                if p.player == ev.player:
                    p.n, p.home, p.status, p.at = ev.n, ev.home, ev.status, ev.at
                    break

    def _on_snapshot(self, snap: m.RaceSnapshot) -> None:
        self.races_seen[snap.race] = snap
        if snap.invite is not None:
            self.invites[snap.race] = snap.invite
        if self.player is not None and any(p.player == self.player for p in snap.players):
            board = self.boards.setdefault(snap.race, Board(race=snap.race))
            board.total = snap.total
            for p in snap.players:
                if p.player == self.player:
                    board.status = p.status

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
        if board is not None and self.player is not None:
            for r in ev.ranking:
                if r.player == self.player:
                    board.status = r.status

    def _on_state(self, st: m.State) -> None:
        race = st.race.race
        missing = self._missing.pop(race, set())
        last = self.versions.get(race, -1)
        for ev in st.events or ():
            if ev.ver > last or ev.ver in missing:  # not seen yet: replay it as an event
                if type(ev) is m.Progress:
                    self._on_progress(ev)
                elif type(ev) is m.End:
                    self._on_end(ev)
                self._emit(ev)
        self._on_snapshot(st.race)
        self.versions[race] = max(last, st.race.ver, *(ev.ver for ev in st.events or ()))
        if st.you is not None:
            board = self.boards.setdefault(race, Board(race=race))
            # A state sent after an out-of-sync error can arrive behind the ack
            # of the next move; the board is then already newer than it.
            if st.you.n >= board.n or board.view is None:
                board.reset(st.you.view, st.you.n, home=st.you.home, status=st.you.status, legal=st.you.legal)
        self._resyncing.discard(race)

    def _schedule_resync(self, race: str, since: int | None) -> None:
        if race in self._resyncing or not self.connected:
            return
        self._resyncing.add(race)
        self._spawn(self._quiet_resync(race, since))

    async def _quiet_resync(self, race: str, since: int | None) -> None:
        try:
            await self.resync(race, since=since)
        except (ServerError, Disconnected, TimeoutError) as exc:
            log.warning("automatic resync of %s failed: %s", race, exc)
        finally:
            self._resyncing.discard(race)

    def _spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    # -- events ----------------------------------------------------------------------

    def _emit(self, ev: object) -> None:
        self._events.append(ev)
        if self._waiters:
            waiters, self._waiters = self._waiters, []
            for w in waiters:
                if not w.done():
                    w.set_result(None)

    async def _wait_event(self, deadline: float | None) -> None:
        if self._closed:
            raise Disconnected("connection closed")
        w: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(w)
        if deadline is None:
            await w
            return
        delay = deadline - time.monotonic()
        if delay <= 0:
            raise TimeoutError
        async with asyncio.timeout(delay):
            await w

    async def next_event(self, timeout: float | None = None) -> object:
        """The oldest buffered event (waiting for one if there is none)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self._events:
            await self._wait_event(deadline)
        return self._events.popleft()

    async def events(self) -> AsyncIterator[object]:
        """`async for ev in c.events()`: every event in order; ends when closed."""
        while True:
            try:
                yield await self.next_event()
            except Disconnected:
                return

    def pending_events(self) -> list[object]:
        """Take every buffered event without waiting."""
        out = list(self._events)
        self._events.clear()
        return out

    async def wait_for(
        self,
        kind: str | type[T] | tuple[type, ...] | None = None,
        predicate: Callable[[Any], bool] | None = None,
        timeout: float | None = 10.0,
    ) -> Any:
        """Take the first buffered or future event of `kind` matching `predicate`.

        `kind` is a wire tag (`"start"`, `"progress"`), an event class
        (`messages.Started`), a tuple of classes, or None for any. Events that
        do not match stay buffered. Raises `TimeoutError` or `Disconnected`.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        seen = 0
        while True:
            events = self._events
            for i in range(seen, len(events)):
                ev = events[i]
                if kind is not None:
                    if isinstance(kind, str):
                        if event_kind(ev) != kind:
                            continue
                    elif not isinstance(ev, kind):
                        continue
                if predicate is not None and not predicate(ev):
                    continue
                del events[i]
                return ev
            seen = len(events)
            await self._wait_event(deadline)
            seen = min(seen, len(self._events))  # a concurrent reader may have taken some

    # -- requests ---------------------------------------------------------------------

    async def _send(self, data: bytes) -> None:
        ws = self._ws
        if ws is None or not self._connected.is_set():
            if self._closing or self._closed or not self.reconnect:
                raise Disconnected("not connected")
            async with asyncio.timeout(self.timeout):
                await self._connected.wait()
            ws = self._ws
            assert ws is not None
        try:
            await ws.send(data)
        except ConnectionClosed as exc:
            if not self.reconnect:
                raise Disconnected(str(exc)) from exc
            # The reader notices the close and reconnects; the caller's future
            # is kept (moves) or failed (other requests) by _on_disconnect.

    def _expect(self, rid: int) -> asyncio.Future[Any]:
        fut = asyncio.get_running_loop().create_future()
        self._pending[rid] = fut
        return fut

    async def _await_reply(self, rid: int, fut: asyncio.Future[Any], timeout: float | None) -> Any:
        loop = asyncio.get_running_loop()
        handle = loop.call_later(timeout or self.timeout, _expire, fut)
        try:
            reply = await fut
        finally:
            handle.cancel()
            if self._pending.get(rid) is fut:
                del self._pending[rid]
        if type(reply) is m.Error:
            if reply.code == m.ErrorCode.ILLEGAL_MOVE:
                raise IllegalMoveError(reply)
            raise ServerError(reply)
        return reply

    async def request(self, msg: m.ClientMsg, *, timeout: float | None = None) -> Any:
        """Send a request (its `rid` is set here) and return the reply."""
        rid = next(self._rids)
        msg = msgspec.structs.replace(msg, rid=rid)
        fut = self._expect(rid)
        if type(msg) is m.Finish:
            self._finishes[rid] = msg.race
        try:
            await self._send(m.encode(msg))
        except BaseException:
            self._pending.pop(rid, None)
            raise
        return await self._await_reply(rid, fut, timeout)

    async def ping(self) -> m.Pong:
        """Round trip; also updates `clock_offset_ms` (server minus local)."""
        t0 = time.time() * 1000
        pong: m.Pong = await self.request(m.Ping())
        t1 = time.time() * 1000
        self.clock_offset_ms = pong.time - (t0 + t1) / 2
        return pong

    async def create(
        self, game: str, seats: int = m.DEFAULT_SEATS, time_limit_s: int | None = None, private: bool = False
    ) -> m.RaceSnapshot:
        """A new race; `time_limit_s` None: the server's default clock (TIME_LIMIT_S)."""
        snap: m.RaceSnapshot = await self.request(
            m.Create(game=game, seats=seats, time_limit_s=time_limit_s, private=private)
        )
        return snap

    def _invite(self, race: str, invite: str | None) -> str | None:
        if invite is not None:
            self.invites[race] = invite
        return self.invites.get(race)

    async def join(self, race: str, invite: str | None = None) -> m.RaceSnapshot:
        """Take a seat; a private race needs its `invite` (from its link)."""
        snap: m.RaceSnapshot = await self.request(m.Join(race=race, invite=self._invite(race, invite)))
        return snap

    async def leave(self, race: str) -> m.RaceSnapshot:
        snap: m.RaceSnapshot = await self.request(m.Leave(race=race))
        self.boards.pop(race, None)
        return snap

    async def ready(self, race: str, ready: bool = True) -> m.RaceSnapshot:
        snap: m.RaceSnapshot = await self.request(m.Ready(race=race, ready=ready))
        return snap

    async def start(self, race: str) -> m.RaceSnapshot:
        snap: m.RaceSnapshot = await self.request(m.Start(race=race))
        return snap

    async def quick(self, game: str, seats: int = m.DEFAULT_SEATS) -> m.Queued:
        queued: m.Queued = await self.request(m.Quick(game=game, seats=seats))
        return queued

    async def unqueue(self, game: str) -> m.Ok:
        ok: m.Ok = await self.request(m.Unqueue(game=game))
        return ok

    async def move(self, race: str, move: str, view: bool = False, *, timeout: float | None = None) -> m.Ack:
        """Play `move` in `race`; returns the ack once the move is durable.

        The move count `n` comes from the local board. Moves of one race are
        sent one at a time (a second concurrent call waits for the first ack).
        Raises `IllegalMoveError` (`.reason`) or `ServerError` (`.code`, e.g.
        `out-of-sync`, after which the board has been resynced).
        """
        board = self.boards.get(race)
        if board is None:
            board = self.boards[race] = Board(race=race)
        lock = self._move_locks.get(race)
        if lock is None:
            lock = self._move_locks[race] = asyncio.Lock()
        async with lock:
            n = board.n
            rid = next(self._rids)
            fut = self._expect(rid)
            board.pending = (n, move)
            self._moves[rid] = (race, n, move, view)
            try:
                await self._send(m.encode(m.Move(rid=rid, race=race, n=n, move=move, view=view)))
                ack: m.Ack = await self._await_reply(rid, fut, timeout)
                return ack
            except ServerError as exc:
                if exc.code == m.ErrorCode.OUT_OF_SYNC:
                    # The board's count is the server's now but its view may
                    # be stale until the pushed state lands: fetch it, so the
                    # caller's next choice is made on the true board.
                    try:
                        await self.resync(race)
                    except (ServerError, Disconnected, TimeoutError) as resync_exc:
                        log.warning("resync of %s after out-of-sync failed: %s", race, resync_exc)
                raise
            finally:
                self._moves.pop(rid, None)
                if board.pending == (n, move):
                    board.pending = None

    async def finish(self, race: str) -> m.Ok:
        ok: m.Ok = await self.request(m.Finish(race=race))
        board = self.boards.get(race)
        if board is not None:
            board.status = m.PlayerStatus.FINISHED
        return ok

    async def resync(self, race: str, since: int | None = None, invite: str | None = None) -> m.State:
        """Ask for the race's state; `since` (a `ver`) also returns missed events."""
        state: m.State = await self.request(
            m.Resync(race=race, since=since, invite=self._invite(race, invite))
        )
        return state

    async def replay(self, race: str, invite: str | None = None) -> m.ReplayData:
        replay: m.ReplayData = await self.request(m.Replay(race=race, invite=self._invite(race, invite)))
        return replay

    async def races(self, game: str | None = None) -> m.RaceList:
        listing: m.RaceList = await self.request(m.Races(game=game))
        return listing

    async def spectate(self, race: str, invite: str | None = None) -> m.RaceSnapshot:
        snap: m.RaceSnapshot = await self.request(m.Spectate(race=race, invite=self._invite(race, invite)))
        self.spectating.add(race)
        return snap

    async def unspectate(self, race: str) -> m.Ok:
        self.spectating.discard(race)
        ok: m.Ok = await self.request(m.Unspectate(race=race))
        return ok

    def board(self, race: str) -> Board:
        """This player's board in `race` (KeyError if the client has none)."""
        return self.boards[race]

    # -- disconnects and reconnection ---------------------------------------------------

    def _on_disconnect(self, code: int | None, reason: str) -> None:
        self._connected.clear()
        self._ws = None
        if self._closed:
            return
        will_retry = self.reconnect and not self._closing
        # Requests other than moves may not be idempotent: fail them now.
        for rid, fut in list(self._pending.items()):
            if will_retry and rid in self._moves:
                continue
            del self._pending[rid]
            if not fut.done():
                fut.set_exception(Disconnected(f"connection lost ({code} {reason})".strip()))
        self._resyncing.clear()
        if self._closing:
            self._mark_closed()
            return
        self._emit(ConnectionLost(code=code, reason=reason))
        if will_retry:
            self._reconnector = asyncio.get_running_loop().create_task(self._reconnect_loop())
        else:
            self._mark_closed()

    def _mark_closed(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._connected.clear()
        for fut in self._pending.values():
            if not fut.done():
                fut.set_exception(Disconnected("connection closed"))
        self._pending.clear()
        self._moves.clear()
        waiters, self._waiters = self._waiters, []
        for w in waiters:
            if not w.done():
                w.set_exception(Disconnected("connection closed"))

    async def _reconnect_loop(self) -> None:
        lost = self.endpoint
        attempt = 0
        while not self._closing:
            attempt += 1
            if self.max_reconnect_attempts is not None and attempt > self.max_reconnect_attempts:
                break
            # Exponential backoff with full jitter between rounds: many clients
            # dropped by one server restart do not all come back in the same
            # millisecond. Within a round the endpoints are tried at once.
            cap = min(self.backoff_max, self.backoff_base * 2 ** (attempt - 1))
            await asyncio.sleep(random.uniform(0, cap))
            try:
                await self._connect_round(after=lost)
            except ServerError as exc:
                log.warning("reconnect refused: %s", exc)
                if exc.code in (m.ErrorCode.BAD_TOKEN, m.ErrorCode.BAD_VERSION):
                    break  # retrying cannot help
                continue
            except Unreachable as exc:
                log.info("reconnect attempt %d failed: %s", attempt, exc)
                continue
            self._reconnector = None
            self._spawn(self._recover(attempt))
            return
        self._reconnector = None
        self._mark_closed()

    async def _recover(self, attempts: int) -> None:
        """After a reconnect: resend unacknowledged moves, re-spectate, resync."""
        ws = self._ws
        try:
            for rid, (race, n, move, view) in list(self._moves.items()):
                if rid in self._pending and ws is not None:
                    # Same n: applied once even if the first copy got through.
                    await ws.send(m.encode(m.Move(rid=rid, race=race, n=n, move=move, view=view)))
            for race in list(self.spectating):
                with contextlib.suppress(ServerError):
                    await self.request(m.Spectate(race=race, invite=self.invites.get(race)))
            for race in list(self.boards):
                try:
                    await self.resync(race, since=self.versions.get(race))
                except ServerError as exc:
                    if exc.code == m.ErrorCode.NO_SUCH_RACE:
                        self.boards.pop(race, None)
        except (Disconnected, ConnectionClosed, TimeoutError) as exc:
            log.info("recovery interrupted: %s", exc)
            return
        self._emit(Reconnected(attempts=attempts))


def _expire(fut: asyncio.Future[Any]) -> None:
    if not fut.done():
        fut.set_exception(TimeoutError("no reply from the server"))


def connect(
    url: str | Sequence[str],
    name: str | None = None,
    token: str | None = None,
    *,
    reconnect: bool = False,
    timeout: float = 10.0,
    **options: Any,
) -> Client:
    """`async with connect(url, name="ada") as c:` — a connected, hello'd client.

    `url` is one server URL or several (processes sharing one Redis; a host
    name with several addresses counts as one endpoint per address): the
    client connects to the first that answers and, with `reconnect=True`,
    fails over to the others (see the module doc). `token` resumes an
    earlier identity. Other options: `backoff_base`, `backoff_max`,
    `max_reconnect_attempts`, `max_events`.
    """
    return Client(url, name=name, token=token, reconnect=reconnect, timeout=timeout, **options)
