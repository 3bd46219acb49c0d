"""Many processes, one race: fan-out through Redis pub/sub, gap fill after a Redis reconnect."""

from __future__ import annotations

import asyncio
import statistics
import time

from must import must
from scale_play import assert_acked_kept, finish, move_seen, seated_race, stored_moves, wait_end
from scale_procs import TcpBalancer
from waiting import DEADLINE, until

import client
from client.bots.strategies import GreedyStrategy
from protocol import messages as m


async def test_three_processes_one_race(redis_node, start_server):
    servers = [start_server(redis_node.url) for _ in range(3)]
    players = [await client.connect(s.url, name=f"p{i}") for i, s in enumerate(servers)]
    watcher = await client.connect(servers[0].url, name="watcher")
    try:
        rid = await seated_race(players, "racing-aces")
        await watcher.spectate(rid)
        for c in players + [watcher]:
            c.pending_events()  # from here on: only what the moves cause
        t_moves = time.perf_counter()
        strategies = [GreedyStrategy() for _ in players]
        acks: list[list[tuple[int, str]]] = [[] for _ in players]
        delays = []
        for _round in range(12):
            for i, (c, strat) in enumerate(zip(players, strategies)):
                mv = strat.choose(c.board(rid).view)
                assert mv is not None
                ack = await c.move(rid, mv)
                t0 = time.perf_counter()
                acks[i].append((ack.n, ack.move))
                # every rival, each on another process, sees this move's progress at once
                for j, other in enumerate(players + [watcher]):
                    if j == i:
                        continue
                    ev = await other.wait_for(m.Progress, move_seen(rid, c.player, ack.n), timeout=DEADLINE)
                    assert ev.ver == ack.ver and ev.home == ack.home
                    delays.append(time.perf_counter() - t0)
        # pushed through pub/sub, not found by a periodic sweep or a resync; bounds loose enough
        # for a machine shared with a second suite
        assert max(delays) < 5.0, max(delays)
        assert statistics.median(delays) < 0.5, statistics.median(delays)
        # the spectator's boards come coalesced (one frame per flush, not per move), delayed:
        # wait until they show every player's last move
        last_n = {c.player: a[-1][0] for c, a in zip(players, acks)}
        boards: list[m.Boards] = []

        def caught_up() -> bool:
            boards.extend(ev for ev in watcher.pending_events() if isinstance(ev, m.Boards))
            return bool(boards) and {b.player: b.n for b in boards[-1].boards} == last_n

        await until(caught_up, what="the spectator's boards show every last move")
        flushes = (time.perf_counter() - t_moves) / 0.05  # --spectator-flush-ms 50
        assert boards and len(boards) <= flushes + 3, (len(boards), flushes)
        assert {b.player for b in boards[-1].boards} == {c.player for c in players}
        for c in players:
            await finish(c, rid)
        ends = [await wait_end(c, rid) for c in players + [watcher]]
        assert all(e.ranking == ends[0].ranking for e in ends)
        assert [r.status for r in ends[0].ranking] == ["finished"] * 3
        for c, a in zip(players, acks):
            n, log = await stored_moves(redis_node.url, rid, c.player)
            assert_acked_kept(a, n, log)
    finally:
        for c in players + [watcher]:
            await c.close()
    for s in servers:
        assert "Traceback" not in s.log_text()


async def test_gap_fill_after_redis_reconnect(redis_node, start_server):
    """Server B loses Redis (a network cut) while A's player moves: B's player still gets every event, in order."""
    link = TcpBalancer([("127.0.0.1", redis_node.port)]).start()
    try:
        a_srv = start_server(redis_node.url)
        b_srv = start_server(link.redis_url)
        a = await client.connect(a_srv.url, name="ada")
        b = await client.connect(b_srv.url, name="bob")
        rid = await seated_race([a, b], "racing-aces")
        strat = GreedyStrategy()
        first = await a.move(rid, must(strat.choose(a.board(rid).view)))
        await b.wait_for(m.Progress, lambda e: e.n == 1, timeout=DEADLINE)
        resyncs: list[tuple[str, int | None]] = []
        real_resync = b.resync

        async def counting_resync(race: str, since: int | None = None, invite: str | None = None) -> m.State:
            resyncs.append((race, since))
            return await real_resync(race, since=since, invite=invite)

        # the library resyncs on a version hole: there must be none
        b.resync = counting_resync  # type: ignore[method-assign]  # a spy on the client
        b.pending_events()

        link.cut()
        acked = [first]
        for _ in range(5):  # A is unaffected: these are acknowledged while B is cut off
            acked.append(await a.move(rid, must(strat.choose(a.board(rid).view))))
        await asyncio.sleep(0.3)  # not a wait: the cut lasts a while
        link.resume()
        await until(lambda: b.versions.get(rid, 0) >= acked[-1].ver, what="B's player caught up")
        await b.ping()  # the pong comes after anything else B already sent (a duplicate would show)
        got = [e for e in b.pending_events() if isinstance(e, m.Progress)]
        assert [(e.n, e.ver) for e in got] == [(x.n, x.ver) for x in acked[1:]], b_srv.log_text()[-4000:]
        assert not resyncs
        # the race goes on across the two processes
        more = await a.move(rid, must(strat.choose(a.board(rid).view)))
        await b.wait_for(m.Progress, lambda e: e.n == more.n, timeout=DEADLINE)
        await finish(a, rid)
        await finish(b, rid)
        for c in (a, b):
            try:
                await wait_end(c, rid)
            except TimeoutError:
                logs = f"A:\n{a_srv.log_text()[-3000:]}\nB:\n{b_srv.log_text()[-3000:]}"
                raise AssertionError(f"no end for {c.name}: {logs}") from None
        n, log = await stored_moves(redis_node.url, rid, a.player)
        assert_acked_kept([(x.n, x.move) for x in acked + [more]], n, log)
        assert "gap fill" not in b_srv.log_text()  # the fill itself did not fail
        await a.close()
        await b.close()
    finally:
        link.close()


async def test_quick_match_notice_survives_a_redis_cut(redis_node, start_server):
    """The 'seated' notice of a quick-match group is published while B is cut off: B looks it up after."""
    link = TcpBalancer([("127.0.0.1", redis_node.port)]).start()
    try:
        a_srv = start_server(redis_node.url)
        b_srv = start_server(link.redis_url)
        a = await client.connect(a_srv.url, name="ada")
        b = await client.connect(b_srv.url, name="bob")
        await b.quick("fours-up")
        link.cut()
        await a.quick("fours-up")  # A pairs them and publishes the notice B cannot hear
        sa = await a.wait_for("start", timeout=DEADLINE)
        await asyncio.sleep(0.3)  # not a wait: the cut lasts a while
        link.resume()
        sb = await b.wait_for("start", timeout=DEADLINE)
        assert sa.race == sb.race and sa.view == sb.view
        await a.close()
        await b.close()
    finally:
        link.close()
