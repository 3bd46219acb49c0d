"""The echo baseline's load: connections that send one frame and wait for its echo.

`EchoConn` is a sender of `pacing` whose message is a fixed frame (a move
frame as the bots send it) and whose reply is the echo; `EchoGen` holds as
many as there are bots. `scriptgen` drives the same senders over Redis calls.
"""

from __future__ import annotations

import asyncio
import random
from typing import Protocol

from .pacing import Generator, Mode, Recorder, Sender
from .wsclient import frame, open_ws


class FrameSink(Protocol):
    """Where an `EchoConn` sends: a WebSocket connection, or what stands in for one."""

    def send_frame(self, data: bytes) -> None: ...

    def close(self) -> None: ...


class EchoConn(Sender):
    __slots__ = ("ws", "payload", "frame")

    def __init__(self, rec: Recorder, mode: Mode, payload: bytes, seed: int) -> None:
        super().__init__(rec, mode, seed)
        self.ws: FrameSink | None = None
        self.payload = payload
        self.frame = frame(payload)

    def on_message(self, data: bytes) -> None:
        self.replied()
        self.send_next()

    def send_one(self, intended: float) -> None:
        self.inflight = intended
        if self.rec.on:
            self.rec.sent += 1
        ws = self.ws
        if ws is None:
            raise ConnectionError("not connected")
        ws.send_frame(self.frame)


class EchoGen(Generator):
    def __init__(self, host: str, port: int, conns: int, payload: bytes, seed: int = 2) -> None:
        super().__init__()
        self.host = host
        self.port = port
        self.conns = echo_conns(self.rec, self.mode, conns, payload, seed)

    def senders(self) -> list[EchoConn]:
        return self.conns

    async def setup(self, concurrency: int = 64) -> None:
        sem = asyncio.Semaphore(concurrency)

        async def one(c: EchoConn) -> None:
            async with sem:
                c.ws = await open_ws(self.host, self.port, "/", on_message=c.on_message)

        await asyncio.gather(*(one(c) for c in self.conns))

    def close(self) -> None:
        for c in self.conns:
            if c.ws is not None:
                c.ws.close()


def echo_conns(rec: Recorder, mode: Mode, n: int, payload: bytes, seed: int) -> list[EchoConn]:
    """`n` senders of `payload`, their phases drawn from `seed`."""
    rng = random.Random(seed)
    return [EchoConn(rec, mode, payload, rng.getrandbits(32)) for _ in range(n)]
