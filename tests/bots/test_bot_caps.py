"""The bots one player may have waiting for a start, with real processes: `solrace serve` and
its `solrace bots` worker (4 slots) on a real Redis. One guest cannot take every slot."""

from __future__ import annotations

import pytest
from test_bot_worker import FAST_BOTS, ask_bot, is_bot
from waiting import until

import client
from protocol import messages as m
from server.handlers.bots import MAX_WAITING_BOTS_PER_PLAYER

pytestmark = pytest.mark.timeout(120)


def bots_seated(c: client.Client, race: str) -> int:
    snap = c.races_seen.get(race)
    return 0 if snap is None else sum(1 for p in snap.players if is_bot(p.player) and p.ready)


async def test_a_guest_gets_two_waiting_bots_and_the_others_still_get_theirs(serve_process) -> None:
    assert MAX_WAITING_BOTS_PER_PLAYER == 2
    url, _proc = serve_process(*FAST_BOTS)
    async with client.connect(url, name="eve") as eve, client.connect(url, name="bob") as bob:
        lobbies = [(await eve.create("fours-up", seats=8, private=True)).race for _ in range(3)]
        await ask_bot(eve, lobbies[0], "random")  # once the worker is there
        await eve.request(m.Bot(race=lobbies[0], level="random"))
        await until(lambda: bots_seated(eve, lobbies[0]) == 2, what="eve's two bots seated")
        # Seated in a lobby, they still count: no third, though the worker has 2 free slots.
        with pytest.raises(client.ServerError) as e:
            await eve.request(m.Bot(race=lobbies[1], level="random"))
        assert e.value.code == "no-bots" and "waiting for a race to start" in e.value.message
        # Someone else still gets one.
        theirs = (await bob.create("fours-up", seats=2, private=True)).race
        await bob.request(m.Bot(race=theirs, level="random"))
        await until(lambda: bots_seated(bob, theirs) == 1, what="bob's bot seated")
        # eve starts the race of her bots: they no longer wait, she may ask for another.
        await eve.ready(lobbies[0])
        await eve.request(m.Start(race=lobbies[0]))
        await eve.request(m.Bot(race=lobbies[1], level="random"))
        await until(lambda: bots_seated(eve, lobbies[1]) == 1, what="eve's next bot seated")
