"""Many concurrent movers on one process: every move is answered, within a bound.

A regression test for a reported stall ("a move's ack never arrived while two
players were moving at once, then the server stalled for ~10 s"): a lost
wake-up or an unresolved future in the batched move path would leave a
request unanswered. Every player of many races moves as fast as it can, and
mixes in what takes the other paths of the move code, while Redis pauses
now and then (CLIENT PAUSE: deep pipelines): pipelined moves
(several in flight), a retried duplicate sent while its original is still in
flight (the slow path waits for the in-flight moves to settle), stale move
counts (out-of-sync, then state), illegal moves, and a second connection of
the same player moving in the same race. Every request must get its answer
within BOUND seconds, and the stored move counts must match the acks.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable

import redis.asyncio as aioredis
from must import must_be
from test_server_race import make_race
from wsclient import Raw, player

from server import storage as S

BOUND = 20.0  # seconds: any request left unanswered this long is a stall (a loaded machine is slower)
SECONDS = 4.0  # the least the movers run (the Redis pauses fall within it)...
ACKS = 500  # ...and the least work they do: a slow machine takes longer, never does less


class Mover:
    def __init__(self, c: Raw, rid: str, seed: int) -> None:
        self.c = c
        self.rid = rid
        self.rng = random.Random(seed)
        self.n = 0
        self.legal: list[str] = []
        self.last: str | None = None
        self.acked: set[int] = set()  # move counts acknowledged (not dup)
        self.worst = 0.0
        self.counts: dict[str, int] = {}

    async def req(self, rid_: int) -> dict:
        t0 = time.perf_counter()
        try:
            reply = await self.c.wait(lambda m: m.get("rid") == rid_, timeout=BOUND)
        except TimeoutError:
            raise AssertionError(f"request {rid_} of {self.c.player} unanswered after {BOUND}s") from None
        self.worst = max(self.worst, time.perf_counter() - t0)
        kind = reply["t"] if reply["t"] != "error" else reply["code"]
        if reply.get("dup"):
            kind = "dup"
        self.counts[kind] = self.counts.get(kind, 0) + 1
        assert kind != "internal", reply
        return reply

    async def send_move(self, n: int, mv: str, view: bool = True) -> int:
        rid_ = next(self.c.rids)
        fields = {"t": "move", "rid": rid_, "race": self.rid, "n": n, "move": mv}
        if view:
            fields["view"] = True
        await self.c.send(fields)
        return rid_

    def took(self, ack: dict) -> None:
        if ack["t"] != "ack":
            return
        if not ack.get("dup"):
            assert ack["n"] not in self.acked, ack
            self.acked.add(ack["n"])
        if ack["n"] >= self.n:
            self.n = ack["n"]
            self.last = ack["move"]
            if "legal" in ack:
                self.legal = ack["legal"]

    async def resync(self) -> None:
        rid_ = next(self.c.rids)
        await self.c.send({"t": "resync", "rid": rid_, "race": self.rid})
        state = await self.req(rid_)
        you = state["you"]
        self.n = you["n"]
        self.legal = you["legal"]

    async def run(self, done: Callable[[], bool]) -> None:
        await self.resync()
        while not done() and self.legal:
            roll = self.rng.random()
            if roll < 0.06 and self.last is not None:
                # a retried duplicate: dup ack
                reply = await self.req(await self.send_move(self.n - 1, self.last, view=False))
                assert reply.get("dup") or reply["t"] == "error", reply
            elif roll < 0.10:
                reply = await self.req(await self.send_move(max(0, self.n - 3), self.legal[0]))
                if reply["t"] == "error" and reply["code"] == "out-of-sync":
                    await self.c.wait(lambda m: m.get("t") == "state" and m.get("rid") is None, timeout=BOUND)
                    await self.resync()
                else:
                    self.took(reply)
            elif roll < 0.13:
                reply = await self.req(await self.send_move(self.n, "t9:9>t9"))
                assert reply["t"] == "error", reply
            elif roll < 0.25:
                # a move and, at once, its duplicate: the second waits for the first to land
                mv = self.rng.choice(self.legal)
                first = await self.send_move(self.n, mv)
                second = await self.send_move(self.n, mv, view=False)
                a1, a2 = await self.req(first), await self.req(second)
                self.took(a1)
                assert a1["t"] != "ack" or a2.get("dup") or a2["t"] == "error", (a1, a2)
                if a1["t"] != "ack":
                    await self.resync()
            elif roll < 0.40:
                # pipelined: a move whose successor we can predict (no card revealed) and the next
                mv = self.rng.choice(self.legal)
                r1 = await self.send_move(self.n, mv)
                a1 = await self.req(r1)
                self.took(a1)
                if a1["t"] != "ack":
                    await self.resync()
                    continue
                if self.legal:
                    burst = [self.rng.choice(self.legal)]
                    ids = [await self.send_move(self.n, burst[0])]
                    # the same count again with another legal move: applied or refused, never lost
                    ids.append(await self.send_move(self.n + 1, self.rng.choice(self.legal)))
                    replies = [await self.req(i) for i in ids]
                    for r in replies:
                        self.took(r)
                    if any(r["t"] != "ack" for r in replies):
                        if any(r.get("code") == "out-of-sync" for r in replies):
                            await self.c.wait(
                                lambda m: m.get("t") == "state" and m.get("rid") is None, timeout=BOUND
                            )
                        await self.resync()
            else:
                mv = self.rng.choice(self.legal)
                reply = await self.req(await self.send_move(self.n, mv))
                self.took(reply)
                if reply["t"] != "ack":
                    if reply.get("code") == "out-of-sync":
                        await self.c.wait(
                            lambda m: m.get("t") == "state" and m.get("rid") is None, timeout=BOUND
                        )
                    await self.resync()


async def test_concurrent_movers_every_request_answered(make_server):
    app = await make_server(rate=100_000, burst=100_000)
    races: list[tuple[str, list[Raw]]] = []
    for k in range(12):
        size = 4 if k % 4 == 0 else 2
        ps = [await player(app.ws_url, f"p{k}-{i}") for i in range(size)]
        races.append((await make_race(app, ps, "fours-up", time_limit_s=600), ps))
    movers: list[Mover] = []
    seed = 0
    for rid, ps in races:
        for p in ps:
            seed += 1
            movers.append(Mover(p, rid, seed))
    # a second connection of some players, moving in the same race at the same time
    for rid, ps in races[:4]:
        twin = await Raw.open(app.ws_url)
        await twin.hello(token=ps[0].token)
        seed += 1
        movers.append(Mover(twin, rid, seed))
    started = time.perf_counter()

    def done() -> bool:
        acks = sum(mv.counts.get("ack", 0) for mv in movers)
        return time.perf_counter() - started >= SECONDS and acks > ACKS

    async def hiccups() -> None:
        # Redis stops answering for a moment, a few times: deep pipelines, many moves in flight
        r = aioredis.Redis.from_url(app.settings.redis)
        try:
            for _ in range(3):
                await asyncio.sleep(SECONDS / 4)
                await r.execute_command("CLIENT", "PAUSE", 200)
        finally:
            await r.aclose()

    await asyncio.wait_for(asyncio.gather(hiccups(), *(mv.run(done) for mv in movers)), 90)

    totals: dict[str, int] = {}
    for mv in movers:
        for kind, count in mv.counts.items():
            totals[kind] = totals.get(kind, 0) + count
    worst = max(mv.worst for mv in movers)
    print("stress:", totals, f"worst {worst:.3f}s")
    assert totals.get("ack", 0) > ACKS, totals
    assert totals.get("dup", 0) > 10 and totals.get("out-of-sync", 0) > 10, totals
    assert worst < BOUND, worst

    # Redis agrees with the acks: each player's stored count is the number of distinct acked counts
    r = aioredis.Redis.from_url(app.settings.redis)
    try:
        by_player: dict[tuple[str, str], set[int]] = {}
        for mv in movers:
            by_player.setdefault((mv.rid, mv.c.player), set()).update(mv.acked)
        for (rid, pid), acked in by_player.items():
            n = int(must_be(await r.hget(S.player_key(rid, pid), "n"), bytes))
            assert acked == set(range(1, n + 1)), (rid, pid, n, sorted(set(range(1, n + 1)) - acked)[:5])
            assert await r.llen(S.log_key(rid, pid)) == n
    finally:
        await r.aclose()
    for _rid, ps in races:
        for p in ps:
            await p.close()
