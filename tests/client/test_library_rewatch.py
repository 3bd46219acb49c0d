"""A watcher that reconnects learns what changed while it was away (the library's re-spectate).

After a reconnect the library sends `spectate` again for each watched race. Its reply, the
race's snapshot, was thrown away; the gap resync that followed emitted the missed events
*below* the snapshot's `ver` only, since the reply had marked that version as seen. So the
event at that version never came: the `end` of a race that ended during the outage (whose
snapshot is the whole reply, docs/protocol.md §4), or the last move made meanwhile. Now the
reply comes as a `race` event in its place among the race's events, and the resync brings
every missed event, the one at the snapshot's version included.

Two real servers on one Redis: the players on A, the watcher on B, which stops and comes
back on its port while the players play.
"""

from __future__ import annotations

import pytest
from waiting import DEADLINE, until

import client
from client.bots.board import visible_game
from protocol import messages as m

pytestmark = pytest.mark.timeout(120)


async def play_one(c: client.Client, race: str) -> None:
    await c.move(race, visible_game(c.board(race).view).legal_moves()[0])


async def watched_while_down(make_server, away) -> tuple[client.Client, str, client.Client, client.Client]:
    """Players on A, a watcher on B; B stops, `away(a, b, race)` runs, B comes back. Returns
    the watcher (reconnected), the race, and the two players (closed by the caller)."""
    server_a = await make_server()
    server_b = await make_server()
    port = server_b.port
    a = await client.connect(server_a.ws_url, name="ada")
    b = await client.connect(server_a.ws_url, name="bob")
    race = (await a.create("fours-up", seats=2)).race
    await b.join(race)
    await b.ready(race)
    await a.ready(race)
    for c in (a, b):
        await c.wait_for(m.Started, lambda ev: ev.race == race, timeout=DEADLINE)
    watcher = client.connect(server_b.ws_url, name="watcher", reconnect=True, backoff_max=0.5)
    await watcher.open()
    snap = await watcher.spectate(race)
    await play_one(a, race)
    await watcher.wait_for("progress", lambda ev: ev.ver > snap.ver, timeout=DEADLINE)

    await server_b.stop()
    await until(lambda: not watcher.connected, what="the watcher's connection lost")
    await away(a, b, race)
    await make_server(port=port)
    await watcher.wait_for("reconnected", timeout=DEADLINE)
    return watcher, race, a, b


async def test_a_race_that_ended_while_the_watcher_was_away(make_server) -> None:
    async def finish_it(a: client.Client, b: client.Client, race: str) -> None:
        await play_one(a, race)
        await play_one(b, race)
        await a.finish(race)
        await b.finish(race)

    watcher, race, a, b = await watched_while_down(make_server, finish_it)
    try:
        truth = (await a.resync(race)).race
        assert truth.status == m.RaceStatus.FINISHED and truth.ranking
        snap = await watcher.wait_for(
            m.RaceSnapshot, lambda ev: ev.race == race and ev.ver == truth.ver, timeout=DEADLINE
        )
        assert snap.rid is None  # an event, as the wire's
        assert snap.status == m.RaceStatus.FINISHED and snap.seed == truth.seed
        assert [r.player for r in snap.ranking or []] == [r.player for r in truth.ranking]
        # A consumer waiting for the end gets it too: the resync brings it after the snapshot.
        end = await watcher.wait_for(m.End, lambda ev: ev.race == race, timeout=DEADLINE)
        assert end.ver == truth.ver and end.seed == truth.seed
    finally:
        for c in (watcher, a, b):
            await c.close()


async def test_moves_made_while_the_watcher_was_away(make_server) -> None:
    async def move_on(a: client.Client, b: client.Client, race: str) -> None:
        await play_one(a, race)
        await play_one(b, race)  # the last event before the watcher is back

    watcher, race, a, b = await watched_while_down(make_server, move_on)
    try:
        truth = (await a.resync(race)).race
        assert truth.status == m.RaceStatus.RUNNING
        snap = await watcher.wait_for(
            m.RaceSnapshot, lambda ev: ev.race == race and ev.ver == truth.ver, timeout=DEADLINE
        )
        assert {p.player: p.n for p in snap.players} == {a.player: 2, b.player: 1}
        # Every missed progress comes as an event, the one at the snapshot's version included.
        last = await watcher.wait_for(
            m.Progress, lambda ev: ev.race == race and ev.ver == truth.ver, timeout=DEADLINE
        )
        assert (last.player, last.n) == (b.player, 1)
        # Live events go on from there.
        await play_one(b, race)
        later = await watcher.wait_for(
            m.Progress, lambda ev: ev.race == race and ev.ver == truth.ver + 1, timeout=DEADLINE
        )
        assert (later.player, later.n) == (b.player, 2)
    finally:
        for c in (watcher, a, b):
            await c.close()
