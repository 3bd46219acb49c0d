"""The arena tests through the protocol on a real server (`make_server`, tests/conftest.py): the
server they start, and one arena race played between two clients."""

from __future__ import annotations

from typing import Any

from waiting import DEADLINE

import client
from client.bots.strategies import Strategy, make
from protocol import messages as m

#: clients may create arenas, none is scheduled, a fast loop; cheap password hashes
SERVER = {
    "arena_create": 1,
    "arena_schedule": "off",
    "arena_tick_ms": 100,
    "password_hash_passes": 1,
    "password_hash_memory_kib": 1024,
}


async def race_the_pairing(a: client.Client, b: client.Client, arena: str) -> str:
    """`a` and `b` have joined `arena`: once paired together, both withdraw (this race still
    counts; no other pairing), `a` makes one move (a draw), both finish. Returns the race, ended."""
    snap: m.RaceSnapshot = await a.wait_for(
        m.RaceSnapshot, lambda s: any(p.player == b.player for p in s.players), timeout=DEADLINE
    )
    race = snap.race
    assert snap.arena == arena and not snap.daily  # the snapshot names the arena that paired it
    for c in (a, b):
        await c.arena_withdraw(arena)
    await a.wait_for(m.Started, lambda ev: ev.race == race, timeout=DEADLINE)
    await a.move(race, "draw")
    await a.finish(race)
    await b.finish(race)
    await a.wait_for(m.End, lambda ev: ev.race == race, timeout=DEADLINE)
    return race


async def one_card_more_home(c: client.Client, race: str) -> tuple[Any, Strategy]:
    """`c` plays (the greedy bot's choices) until it has a card more home than the deal gave;
    its board and the strategy, to play on."""
    board = c.board(race)
    dealt, strategy = board.home, make("greedy")
    strategy.new_game()
    while board.home == dealt and board.has_view:
        move = strategy.choose(board.view)
        if move is None:
            break
        await c.move(race, move)
    assert board.home > dealt
    return board, strategy
