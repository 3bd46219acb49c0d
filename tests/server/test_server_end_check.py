"""A process that stores the last game's end (a finish, a winning move) and dies before it ends
the race (handlers/play.py `_end_check`): the race still ends within END_CHECK_MS, by the
timer stored before the move, not at its deadline minutes later (a chaos audit found it
running, everyone finished, until the deadline). The death is played by a process whose
`tick_soon` does nothing; its deadline sweeper stands for any surviving process's."""

from __future__ import annotations

import time

from test_server_race import WIN, make_race, play
from waiting import until
from wsclient import player

from server.handlers.play import END_CHECK_MS


def _no_tick_soon(server) -> None:
    server.service.tick_soon = lambda rid: None


async def test_a_race_whose_last_player_finished_ends_though_its_process_never_ended_it(server):
    _no_tick_soon(server)
    ada = await player(server.ws_url, "ada")
    rid = (await ada.request("create", game="fours-up", seats=1, time_limit_s=600))["race"]
    assert (await ada.request("ready", race=rid))["t"] == "race"
    await ada.wait(lambda m: m.get("t") == "start" and m["race"] == rid)

    # The start's own tick stores the deadline as the timer just after it commits: a finish in
    # between would have its end check overwritten (a window the end check does not close: the
    # process would have to die in it too). Wait for the deadline's timer.
    async def counting_down_to_the_deadline() -> bool:
        at = await server.store.scheduled_at(rid)
        return at is not None and at > server.service.now_ms() + 60_000

    await until(counting_down_to_the_deadline, what="the deadline's timer")
    t0 = time.monotonic()
    assert (await ada.request("finish", race=rid))["t"] == "ok"
    end = await ada.wait(lambda m: m.get("t") == "end" and m["race"] == rid)
    assert end["ranking"][0]["status"] == "finished"
    assert time.monotonic() - t0 < 60  # the deadline is 600 s away; END_CHECK_MS is 2 s

    # followed up (its timer gone): a late finish puts none back (the sweep would redo it all)
    async def followed_up() -> bool:
        return await server.store.scheduled_at(rid) is None

    await until(followed_up, what="the follow-up of the end")
    assert (await ada.request("finish", race=rid))["t"] == "error"
    assert await server.store.scheduled_at(rid) is None
    await ada.close()


async def test_a_race_won_by_its_last_player_ends_though_its_process_never_ended_it(server):
    _no_tick_soon(server)
    server.service.seed_factory = lambda: WIN["seed"]
    ada = await player(server.ws_url, "ada")
    rid = await make_race(server, [ada], WIN["game"], time_limit_s=600)
    await play(ada, rid, WIN["moves"][:-1])
    # the winning move arms the end check before it is stored
    await play(ada, rid, WIN["moves"][-1:], len(WIN["moves"]) - 1)
    at = await server.store.scheduled_at(rid)
    assert at is None or at <= server.service.now_ms() + END_CHECK_MS
    end = await ada.wait(lambda m: m.get("t") == "end" and m["race"] == rid)
    assert end["ranking"][0]["status"] == "won"
    await ada.close()
