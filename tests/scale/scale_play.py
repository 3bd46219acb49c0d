"""Playing races through the client library, and checking them against Redis."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import redis.asyncio as aioredis
from waiting import DEADLINE, until

import client
from client.bots.board import visible_game
from client.bots.strategies import GreedyStrategy
from protocol import messages as m
from server import storage as S


class EndlessStrategy:
    """Any legal move at random, repeats allowed, but not one into a position with no move when
    another leads elsewhere: a game that does not run out of moves. Purely at random, Fours Up got
    stuck in 3 of 60 deals within 6,000 moves (after 1,142, 1,200 and 2,676), and a test that
    plays until a disk fills failed on it; with this one-move lookahead, in none."""

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def new_game(self) -> None:
        pass

    def choose(self, view) -> str | None:
        g = visible_game(view)
        legal = g.legal_moves()
        going_on = [mv for mv in legal if _has_moves_after(g, mv)]
        return self.rng.choice(going_on or legal) if legal else None


def _has_moves_after(g, move: str) -> bool:
    after = g.copy()
    after.play(move)
    return bool(after.legal_moves())


def move_seen(rid: str, player: str, n: int) -> Callable[[m.Progress], bool]:
    """Matches the progress event of `player`'s move number `n` in race `rid`."""
    return lambda e: e.race == rid and e.player == player and e.n == n


async def seated_race(
    players: list[client.Client], game: str = "racing-aces", time_limit_s: int = 600
) -> str:
    """Create a race for everyone, join, ready; returns its id once every player has its start."""
    snap = await players[0].create(game, seats=len(players), time_limit_s=time_limit_s)
    rid = snap.race
    for c in players[1:]:
        await c.join(rid)
    for c in players:
        await c.ready(rid)
    for c in players:
        await c.wait_for("start", lambda ev: ev.race == rid, timeout=DEADLINE)
    return rid


@dataclass
class Played:
    acks: list[tuple[int, str]] = field(default_factory=list)  # (n, move) of every ack received
    errors: list[str] = field(default_factory=list)  # error codes met on the way (and survived)


async def play(
    c: client.Client,
    rid: str,
    count: int,
    played: Played | None = None,
    *,
    strategy: GreedyStrategy | EndlessStrategy | None = None,
    pause: float = 0.0,
    move_timeout: float = 30.0,
) -> Played:
    """Up to `count` moves chosen by a greedy bot from the player's own board.

    Survives what a real client survives: `out-of-sync` and `internal`
    (Redis went away or came back: resync, then choose again),
    timeouts and disconnects while the library reconnects.
    """
    played = played or Played()
    strategy = strategy or GreedyStrategy()
    board = c.board(rid)
    done = 0
    while done < count and not board.won:
        mv = strategy.choose(board.view)
        if mv is None:
            break
        try:
            ack = await c.move(rid, mv, timeout=move_timeout)
        except client.ServerError as exc:
            played.errors.append(exc.code)
            if exc.code == "out-of-sync":
                # the library resyncs the board at once, but that resync can meet `internal`
                # too (Redis just came back): choose the next move only on a fresh board
                await _resync(c, rid)
                continue
            if exc.code == "internal":
                await asyncio.sleep(0.1)
                await _resync(c, rid)
                continue
            raise
        except (TimeoutError, client.Disconnected) as exc:
            played.errors.append(type(exc).__name__)
            await asyncio.sleep(0.1)
            await _resync(c, rid)
            continue
        played.acks.append((ack.n, ack.move))
        done += 1
        if pause:
            await asyncio.sleep(pause)
    return played


async def _resync(c: client.Client, rid: str) -> None:
    """Fetch the race's state, retrying while the server or its Redis is away."""

    async def resynced() -> bool:
        try:
            await c.resync(rid)
        except (client.ServerError, TimeoutError, client.Disconnected):
            return False
        return True

    await until(resynced, interval=0.1, what=f"a resync of {rid}")


async def finish(c: client.Client, rid: str) -> None:
    """Declare the game finished, retrying through reconnects; a game already over is fine."""
    for _ in range(100):
        try:
            await c.finish(rid)
            return
        except client.ServerError as exc:
            if exc.code in ("game-over", "race-not-running"):
                return
            await asyncio.sleep(0.1)
        except (TimeoutError, client.Disconnected):
            await asyncio.sleep(0.1)
    raise AssertionError(f"could not finish {rid}")


async def wait_end(c: client.Client, rid: str, timeout: float = DEADLINE) -> m.End:
    """The race's `end` (as an event, or from a resync if it was missed across a reconnect)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        try:
            return await c.wait_for("end", lambda ev: ev.race == rid, timeout=1.0)
        except TimeoutError:
            snap = c.races_seen.get(rid)
            if snap is not None and snap.status == m.RaceStatus.FINISHED and snap.ranking:
                return m.End(race=rid, ver=snap.ver, seed=snap.seed, ranking=snap.ranking)
            if c.connected:
                await _resync(c, rid)
    raise TimeoutError(f"no end of {rid}")


async def stored_moves(redis_url: str, rid: str, pid: str | None, r: Any = None) -> tuple[int, list[str]]:
    """(n, moves of the log) of one player (a client's id once it said hello), straight from Redis."""
    assert pid is not None
    own = r is None
    if own:
        r = aioredis.Redis.from_url(redis_url)
    try:
        n = await r.hget(S.player_key(rid, pid), "n")
        log = await r.lrange(S.log_key(rid, pid), 0, -1)
    finally:
        if own:
            await r.aclose()
    return int(n or 0), [e.decode().split(" ", 2)[2] for e in log]


def assert_acked_kept(acks: list[tuple[int, str]], n: int, log: list[str]) -> None:
    """Every acknowledged move is in the stored log, at its place; the count agrees with the log."""
    assert n == len(log), (n, len(log))
    for k, mv in acks:
        assert k <= len(log), f"ack n={k} ({mv}) lost: only {len(log)} moves stored"
        assert log[k - 1] == mv, f"ack n={k}: stored {log[k - 1]!r}, acked {mv!r}"
