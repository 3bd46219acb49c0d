"""The race-server load: groups of bots, each group one race after another.

Each race group (`Group`) creates a race, the others join, all ready; its bots
(`bot.Bot`) then play until the race ends, and the group creates a new one.
`MoveGen` holds all groups and switches their bots between the loops of
`pacing`.
"""

from __future__ import annotations

import asyncio
import random
from typing import Any

from .bot import Bot, encode
from .pacing import Generator, now


class Group:
    """One race of `players` bots: create, join, ready, play; a new race when it ends."""

    def __init__(self, gen: MoveGen, idx: int, players: int, game: str) -> None:
        self.gen = gen
        self.idx = idx
        self.players = players
        self.game = game
        self.bots: list[Bot] = []
        self.race = ""
        self.running = False
        self.races_played = 0

    async def setup_race(self) -> None:
        host = self.bots[0]
        async with asyncio.timeout(30):
            snap = await host.request(
                {"t": "create", "game": self.game, "seats": self.players, "time_limit_s": 7200}
            )
        rid = snap["race"]
        self.race = rid
        loop = asyncio.get_running_loop()
        started: list[asyncio.Future[None]] = []
        for b in self.bots:
            b.started = loop.create_future()
            started.append(b.started)
            b.race = ""
        for b in self.bots[1:]:
            async with asyncio.timeout(30):
                await b.request({"t": "join", "race": rid})
        # Every ready is sent at once, so one deadline for them all is each one's deadline.
        async with asyncio.timeout(30):
            await asyncio.gather(*(b.request({"t": "ready", "race": rid}) for b in self.bots))
        async with asyncio.timeout(60):
            await asyncio.gather(*started)
        self.running = True
        self.races_played += 1

    def on_end(self, bot: Bot, msg: dict[str, Any]) -> None:
        if bot is not self.bots[0] or msg.get("race") != self.race:
            return
        self.running = False
        for b in self.bots:
            b.race = ""
            b.done = True
            b.stop_timer()
        self.gen.spawn(self.restart())

    async def restart(self) -> None:
        try:
            await self.setup_race()
        except Exception as exc:  # counted, the group stays down
            self.gen.rec.error(f"restart:{type(exc).__name__}")
            return
        mode = self.gen.mode
        for b in self.bots:
            if mode.kind == "closed":
                b.kick()
            elif mode.kind == "open":
                b.arm(now())


class MoveGen(Generator):
    def __init__(self, host: str, port: int, races: int, players: int, game: str, seed: int = 1) -> None:
        super().__init__()
        self.host = host
        self.port = port
        self.table: dict[tuple[str, str, int], list[float]] = {}
        self.sent_log: dict[tuple[str, int], float] | None = None  # fan-out mode: (player, n) -> intended
        self.groups = [Group(self, i, players, game) for i in range(races)]
        self.tasks: set[asyncio.Task[None]] = set()
        rng = random.Random(seed)
        for g in self.groups:
            g.bots = [Bot(g, j, self.rec, self.mode, self.table, rng.getrandbits(32)) for j in range(players)]

    @property
    def bots(self) -> list[Bot]:
        return [b for g in self.groups for b in g.bots]

    def spawn(self, coro: Any) -> None:
        t = asyncio.get_running_loop().create_task(coro)
        self.tasks.add(t)
        t.add_done_callback(self.tasks.discard)

    async def setup(self, concurrency: int = 64) -> None:
        sem = asyncio.Semaphore(concurrency)

        async def one(g: Group) -> None:
            async with sem:
                for b in g.bots:
                    await b.connect(self.host, self.port, f"bench-{g.idx}-{b.idx}")
                await g.setup_race()

        await asyncio.gather(*(one(g) for g in self.groups))

    def senders(self) -> list[Bot]:
        return self.bots

    async def quiesce(self, timeout: float = 10.0) -> None:
        await super().quiesce(timeout)
        self.table.clear()

    def sample_frame(self) -> bytes:
        """A move frame as the bots send it (the echo baseline's message)."""
        b = self.groups[0].bots[0]
        return encode(
            {"t": "move", "rid": 123456, "race": b.race or "r" + "0" * 15, "n": 123, "move": "t2:3>t5"}
        )

    def close(self) -> None:
        for b in self.bots:
            if b.ws is not None:
                b.ws.close()
