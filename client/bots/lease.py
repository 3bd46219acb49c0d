"""A worker's hold on one bot, and the bot's connection that respects it.

server/storage/bots.py "Leases" keeps the truth in Redis; this is the worker's
side: a `Lease` knows until when (monotonic clock) its last renewal is sure to
hold here, and a `BotClient` sends nothing while it does not, so a worker that
stalled past its lease first learns whether the bot is still its own.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

import client
from protocol import messages as m
from server.storage.bots import LEASE_MARGIN_MS, LEASE_MS, BotRequest

log = logging.getLogger("solrace.bots")

HOLD_S = (LEASE_MS - LEASE_MARGIN_MS) / 1000  # a renewed lease holds this long here


class Lease:
    """This worker's hold on one bot (server/storage/bots.py "Leases"): the request it
    plays, the epoch of its record, and until when (monotonic clock) the lease last
    renewed is known to hold here: ``LEASE_MARGIN_MS`` short of its end in Redis,
    counted from before the renewal was sent. The bot's connection sends nothing
    while it does not hold: a worker that stalled past it first learns whether the
    bot is still its own."""

    def __init__(self, request: BotRequest, epoch: int, resumed: bool, since: float) -> None:
        self.request = request
        self.epoch = epoch
        self.resumed = resumed  # taken from a resume request: the bot has a seat, or had one
        self.until = since + HOLD_S
        self.lost = False  # another worker holds it now: given up
        self.done = False  # through with it here (dropped or released)
        self._renewed = asyncio.Event()

    @property
    def bot(self) -> str:
        return self.request.player

    def holds(self, at: float | None = None) -> bool:
        return (time.monotonic() if at is None else at) < self.until

    def renewed(self, since: float) -> None:
        """Renewed by a call sent at `since` (monotonic)."""
        self.until = max(self.until, since + HOLD_S)
        self._renewed.set()

    async def hold(self) -> None:
        """Return once the lease is known to hold (at once but after a stall); a lost lease
        never returns (its bot's task is cancelled)."""
        while not self.holds():
            self._renewed.clear()
            await self._renewed.wait()


class BotClient(client.Client):
    """A bot's connection: every request and move waits until the bot's lease holds."""

    lease: Lease | None = None

    async def request(self, msg: m.ClientMsg, *, timeout: float | None = None) -> Any:
        if self.lease is not None:
            await self.lease.hold()
        return await super().request(msg, timeout=timeout)

    async def move(
        self, race: str, move: str, view: bool = False, *, timeout: float | None = None, resend: bool = True
    ) -> m.Ack:
        if self.lease is not None:
            await self.lease.hold()
        board = self.boards.get(race)
        log.debug("bot %s moves %d in %s: %s", self.player, board.n if board else 0, race, move)
        return await super().move(race, move, view, timeout=timeout, resend=resend)
