"""Sending requests and matching their replies; moves, `finish` and `resync`."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import msgspec
from websockets.exceptions import ConnectionClosed

from protocol import messages as m

from .board import Board
from .errors import Disconnected, IllegalMoveError, ServerError
from .events import EventQueue

log = logging.getLogger("solrace.client")


class Requester(EventQueue):
    """Requests and their replies: `request`, and the moves, which are resent after a reconnect."""

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
        return await self._request(msg, timeout)

    async def _request(self, msg: m.ClientMsg, timeout: float | None, rewatch: bool = False) -> Any:
        """`request`; `rewatch`: a `spectate` sent again after a reconnect, whose reply the
        reader also emits as an event (`RaceTracking._on_watched_again`)."""
        rid = next(self._rids)
        msg = msgspec.structs.replace(msg, rid=rid)
        fut = self._expect(rid)
        if type(msg) is m.Finish:
            self._finishes[rid] = msg.race
        if rewatch:
            self._rewatching.add(rid)
        try:
            try:
                await self._send(m.encode(msg))
            except BaseException:
                self._pending.pop(rid, None)
                raise
            return await self._await_reply(rid, fut, timeout)
        finally:
            self._rewatching.discard(rid)

    async def move(
        self, race: str, move: str, view: bool = False, *, timeout: float | None = None, resend: bool = True
    ) -> m.Ack:
        """Play `move` in `race`; returns the ack once the move is durable.

        The move count `n` comes from the local board. Moves of one race are
        sent one at a time (a second concurrent call waits for the first ack).
        Raises `IllegalMoveError` (`.reason`) or `ServerError` (`.code`, e.g.
        `out-of-sync`, after which the board has been resynced).

        With `reconnect=True` a move whose connection drops before its ack is
        resent once reconnected, and this call returns its ack then (or raises
        `TimeoutError` at `timeout`). `resend=False` is for a player who decides
        again on the board the reconnection brings: the drop fails the call at
        once with `ReplyLost` (the move may or may not have been played: the
        resynced board says which), and the move is not resent.
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
            if not resend:
                self._no_resend.add(rid)
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
                self._no_resend.discard(rid)
                if self._pending.get(rid) is fut:  # not sent: no reply was awaited to drop it
                    del self._pending[rid]
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


def _expire(fut: asyncio.Future[Any]) -> None:
    if not fut.done():
        fut.set_exception(TimeoutError("no reply from the server"))
