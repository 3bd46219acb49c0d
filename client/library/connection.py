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
  re-spectates, and resyncs each race. The reply to each re-spectate is
  emitted as a `race` event, in its place among that race's events: the
  watched race as it is now (a race that ended meanwhile is `finished`,
  with its ranking: no live event of it follows). The events missed meanwhile that
  the server still holds are resynced and emitted too, as after any gap,
  possibly after later live ones: those at or below the snapshot's `ver`
  are already in it. `Reconnected` comes after the re-spectates. Other
  requests in flight when the connection drops fail at once with
  `ReplyLost`, a `Disconnected` (they may not be idempotent: `create`,
  `quick`; the server may have done them before the drop), as do moves
  sent with `move(..., resend=False)`. A request made while reconnecting
  waits for the new connection (up to its timeout).
  `url` is the URL of the current connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import Generator, Sequence
from typing import Any

import websockets
from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI

from protocol import messages as m

from .accounts import AccountCalls
from .board import Board
from .endpoints import Endpoint, endpoints
from .errors import (
    Disconnected,
    IllegalMoveError,
    NotConnected,
    ReplyLost,
    ServerError,
    Unreachable,
    describe,
)
from .events import ConnectionLost, Reconnected, event_kind

__all__ = [
    "Client",
    "ConnectionLost",
    "Disconnected",
    "Endpoint",
    "IllegalMoveError",
    "NotConnected",
    "Reconnected",
    "ReplyLost",
    "ServerError",
    "Unreachable",
    "connect",
    "endpoints",
    "event_kind",
]

log = logging.getLogger("solrace.client")

#: Frames from the server can be large (replays, race lists); the server is trusted.
MAX_INBOUND = 16 * 1024 * 1024


class Client(AccountCalls):
    """A connection to a solrace server. Use `connect(...)`; see the package doc."""

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
                log.info("cannot connect to %s: %s", ep, describe(exc))
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
            hello = m.Hello(v=m.PROTOCOL_VERSION, token=self._token, name=self._name)
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
        self._welcome = reply
        self._player, self._token, self._name = reply.player, reply.token, reply.name
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
            if fut is not None and rid in self._rewatching:
                self._on_watched_again(msg)
            elif self._note_version(msg.race, msg.ver) or fut is not None:
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

    # -- disconnects and reconnection ---------------------------------------------------

    def _on_disconnect(self, code: int | None, reason: str) -> None:
        self._connected.clear()
        self._ws = None
        if self._closed:
            return
        will_retry = self.reconnect and not self._closing
        # Requests other than moves may not be idempotent: fail them now, as the moves whose
        # caller decides again once reconnected (`resend=False`). They were sent: the server
        # may have done them, which `ReplyLost` says.
        for rid, fut in list(self._pending.items()):
            if will_retry and rid in self._moves and rid not in self._no_resend:
                continue
            del self._pending[rid]
            if not fut.done():
                fut.set_exception(ReplyLost(f"connection lost ({code} {reason})".strip()))
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
        # A future nobody awaits any more (a request whose caller has moved on, e.g. a bot's
        # in a worker that is stopping) would log "exception was never retrieved" at its
        # collection: marked retrieved here; whoever still awaits one gets the exception all the same.
        for fut in self._pending.values():
            if not fut.done():
                fut.set_exception(Disconnected("connection closed"))
                fut.exception()
        self._pending.clear()
        self._moves.clear()
        waiters, self._waiters = self._waiters, []
        for w in waiters:
            if not w.done():
                w.set_exception(Disconnected("connection closed"))
                w.exception()

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
                    # Its reply comes as a `race` event too: what changed meanwhile.
                    await self._request(
                        m.Spectate(race=race, invite=self.invites.get(race)), None, rewatch=True
                    )
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
