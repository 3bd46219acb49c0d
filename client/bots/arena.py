"""Bots that take part in an arena: join, play every race they are paired into, until it ends.

Each bot is one connection (one player). After ``arena_join`` the server
pairs it whenever it is free; a paired bot receives the new race's snapshot
(as a quick-match player does), plays it with ``online.play_race`` and waits
for its ``end``; then it is free again. A bot stops once the arena is over
and it has no race left.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import TypeVar

import client
from protocol import messages as m

from .online import BotResult, _connected, _in_race, play_race
from .strategies import Strategy

T = TypeVar("T")


@dataclass
class ArenaBot:
    name: str
    player: str = ""
    races: list[BotResult] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


async def arena_status(c: client.Client, arena: str) -> m.ArenaData:
    reply: m.ArenaData = await c.request(m.ArenaGet(arena=arena))
    return reply


async def play_arena(
    c: client.Client,
    arena: str,
    strategy: Strategy,
    bot: ArenaBot,
    *,
    delay_ms: float = 0,
    on_race: Callable[[str], None] | None = None,
    berserk: bool = False,
) -> None:
    """Join ``arena`` and play each race it pairs ``c`` into, until the arena is over;
    ``berserk``: take half the clock of every race (where the arena allows it)."""
    joined: m.ArenaData = await _unhurried(lambda: c.request(m.ArenaJoin(arena=arena)))
    bot.player = c.player
    played: set[str] = set()
    time_limit_s = joined.arena.time_limit_s
    while True:
        try:
            snap = await c.wait_for(
                m.RaceSnapshot,
                lambda s: s.race not in played and any(p.player == c.player for p in s.players),
                timeout=2.0,
            )
            race, started = snap.race, False
        except TimeoutError:
            info = await _between_reconnects(c, lambda: arena_status(c, arena))
            if info is None:
                continue
            if info.race is None or info.race in played:
                if info.arena.status == "over" and info.race is None:
                    return
                continue
            # Paired while the notice could not reach us (a reconnect): catch up from a resync.
            race = info.race
            try:
                st = await _between_reconnects(c, partial(c.resync, race))
            except client.ServerError as e:
                if e.code == m.ErrorCode.NO_SUCH_RACE:  # formed, its race not created yet
                    continue
                raise
            if st is None:
                continue
            started = st.race.status == m.RaceStatus.RUNNING
            if st.race.status == m.RaceStatus.FINISHED:
                played.add(race)
                continue
        played.add(race)
        if on_race is not None:
            on_race(race)
        result = BotResult(bot.name)
        bot.races.append(result)
        if berserk and joined.arena.berserk and not started:
            await _berserk(c, arena, race, bot)
        if started or await _started(c, race):  # else over before we could play it
            await play_race(c, race, strategy, result, delay_ms, started=True)
        for row in await _ranking(c, race, time_limit_s + 30):
            if row.player == c.player:
                result.rank = row.rank
                result.status = row.status


async def _unhurried(ask: Callable[[], Awaitable[T]]) -> T:
    """The reply of ``ask()``, asked again after the wait the server names while the
    player's message credits are spent (its moves share them): nothing was done."""
    while True:
        try:
            return await ask()
        except client.ServerError as e:
            if e.code != m.ErrorCode.RATE_LIMITED:
                raise
            await asyncio.sleep((e.retry_ms or 100) / 1000)


async def _between_reconnects(c: client.Client, ask: Callable[[], Awaitable[T]]) -> T | None:
    """The reply (`_unhurried`), or None when the connection dropped under the request and
    the client is reconnecting (it resyncs its races itself; the caller asks again)."""
    try:
        return await _unhurried(ask)
    except client.Disconnected:
        if c.closed:
            raise
        return None


async def _berserk(c: client.Client, arena: str, race: str, bot: ArenaBot) -> None:
    try:
        await _unhurried(lambda: c.request(m.ArenaBerserk(arena=arena, race=race)))
    except client.ServerError as e:  # the countdown ended first: play the full clock
        bot.errors.append(f"berserk: {e.code}")


async def _started(c: client.Client, race: str) -> bool:
    """Wait for the race's start; False if it ended first. The start event can be missed
    (the seating notice came just before the start): a resync then tells."""
    while True:
        try:
            await c.wait_for(m.Started, _in_race(race), timeout=2.0)
            return True
        except TimeoutError:
            st = await _between_reconnects(c, lambda: c.resync(race))
            if st is None:
                continue
            if st.race.status == m.RaceStatus.RUNNING:
                return True
            if st.race.status == m.RaceStatus.FINISHED:
                return False


async def _ranking(c: client.Client, race: str, timeout: float) -> list[m.RankEntry]:
    """The race's final ranking: from its ``end``, or, when that was missed (a reconnect
    at the wrong moment), from a resync once the race is over."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        try:
            end: m.End = await c.wait_for(m.End, _in_race(race), timeout=2.0)
            return list(end.ranking)
        except TimeoutError:
            st = await _between_reconnects(c, lambda: c.resync(race))
            if st is not None and st.race.status == m.RaceStatus.FINISHED and st.race.ranking is not None:
                return list(st.race.ranking)
            if asyncio.get_running_loop().time() > deadline:
                raise


async def run_arena_bots(
    url: str | Sequence[str],
    arena: str,
    strategies: list[Strategy],
    *,
    delay_ms: float = 0,
    name_prefix: str = "bot",
    on_race: Callable[[str], None] | None = None,
    berserk: bool = False,
) -> list[ArenaBot]:
    """One bot per strategy in ``arena``, until it is over; returns what each played."""
    names = [f"{name_prefix}-{i + 1}" for i in range(len(strategies))]
    bots = [ArenaBot(n) for n in names]
    async with _connected(url, names) as clients:
        await asyncio.gather(
            *(
                play_arena(c, arena, s, b, delay_ms=delay_ms, on_race=on_race, berserk=berserk)
                for c, s, b in zip(clients, strategies, bots, strict=True)
            )
        )
    return bots
