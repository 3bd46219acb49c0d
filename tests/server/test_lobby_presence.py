"""A public lobby nobody waits in (server/handlers/presence.py): it leaves the race list as soon
as none of its seated persons is connected to any process, and once that lasted
`--lobby-away-ms` its seats are given back; a person back within that grace keeps their seat.
Real sockets, two server processes on one Redis, one of them killed."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
import redis.asyncio as aioredis
from held_tick import HeldTick
from must import must_be
from waiting import DEADLINE, until
from wsclient import Raw, player

from server.storage import keys
from server.storage.bots import BotQueue
from server.storage.sessions import conns_key, player_conns_name

GAME = "fours-up"
AWAY_MS = 300
LATE_S = 0.2  # how late the published race events reach the process (the late-pubsub test)


async def listed(c: Raw) -> set[str]:
    return {x["race"] for x in (await c.request("races"))["races"]}


async def seated(app: Any, rid: str) -> list[str]:
    _now, race = await app.store.load_race(rid)
    assert race is not None
    return [p.player for p in race.players]


def released(*apps: Any) -> int:
    """Lobbies given back by these processes (the one whose tick found it, either)."""
    return sum(app.service.metrics.lobbies_released for app in apps)


async def abandoned_lobby_is_unlisted_then_given_back(
    make_server: Callable[..., Awaitable[Any]], redis: str | None = None
) -> None:
    """The abandoned lobby's test body, on two processes: on this module's Redis, or on the
    one at ``redis`` (test_lobby_presence_cluster.py's Redis Cluster)."""
    # Loopback is exempt by default (--limit-exempt): these servers exempt nobody.
    settings: dict[str, Any] = dict(lobby_away_ms=AWAY_MS, max_public_lobbies_per_addr=1, limit_exempt="")
    if redis is not None:
        settings["redis"] = redis
    app1, app2 = await make_server(**settings), await make_server(**settings)
    ada = await player(app1.ws_url, "ada")
    eve = await player(app2.ws_url, "eve")
    rid = (await ada.request("create", game=GAME))["race"]
    assert rid in await listed(eve)
    assert (await eve.request("create", game=GAME))["code"] == "too-many-races"  # the address's one
    token = ada.token
    await ada.close()
    # Nobody waits in it any more: out of the list on the other process, long before the grace
    # ends (the seat is still ada's meanwhile).
    await until(lambda: _not_listed(eve, rid), what="the lobby left the list")
    # Once nobody came back for the grace, the seat is given back: the lobby is empty and
    # unlisted, and counts no longer against its creator's address.
    await until(lambda: _empty(app2, rid), what="the lobby's seats given back")
    await until(lambda: _no_timer(app1, rid), what="no clock left to tick")
    assert await app1.store.player_races(ada.player) == []
    made = await eve.request("create", game=GAME)
    assert made["t"] == "race", made
    # Counted once, where it was done (the count follows the release's commit: waited for).
    await until(lambda: released(app1, app2) >= 1, what="the release counted")
    assert released(app1, app2) == 1
    # ada comes back later: the lobby is no longer hers.
    back = await Raw.open(app1.ws_url)
    assert (await back.hello(token=token))["races"] == []
    await asyncio.gather(back.close(), eve.close())


async def test_an_abandoned_lobby_leaves_the_list_at_once_and_gives_its_seats_back(make_server):
    await abandoned_lobby_is_unlisted_then_given_back(make_server)


async def _not_listed(c: Raw, rid: str) -> bool:
    return rid not in await listed(c)


async def _no_timer(app: Any, rid: str) -> bool:
    return await app.store.scheduled_at(rid) is None


async def _empty(app: Any, rid: str) -> bool:
    return await seated(app, rid) == []


async def test_a_player_back_within_the_grace_keeps_their_seat(make_server):
    away_ms = 2000  # room for the hello below on a loaded machine
    app1, app2 = await make_server(lobby_away_ms=away_ms), await make_server(lobby_away_ms=away_ms)
    ada = await player(app1.ws_url, "ada")
    eve = await player(app2.ws_url, "eve")
    rid = (await ada.request("create", game=GAME))["race"]
    token = ada.token
    await ada.close()
    r = app1.store.redis
    # The lobby's clock found it unattended: its away mark is set.
    mark = await until(lambda: r.get(keys.away_key(rid)), what="the away mark")
    left_at = int(mark)
    # ada comes back, on the other process, within the grace: her hello restarts the clock,
    # the lobby is listed again.
    ada = await Raw.open(app2.ws_url)
    assert (await ada.hello(token=token))["races"] == [rid]
    assert await r.get(keys.away_key(rid)) is None
    assert rid in await listed(eve)
    # Past the grace counted from her first absence, the clock has looked again (found her
    # here, it looks a whole grace later): she still sits there, the host.
    await until(
        lambda: _scheduled_after(app1, rid, left_at + away_ms), what="a look after the first grace's end"
    )
    assert await seated(app1, rid) == [ada.player]
    assert rid in await listed(eve)
    # Gone again: the grace starts from this absence, not from the first.
    closed_at = await app1.store.time_ms()
    await ada.close()
    mark = await until(lambda: r.get(keys.away_key(rid)), what="the away mark again")
    assert int(mark) >= closed_at
    await eve.close()


async def _scheduled_after(app: Any, rid: str, at: int) -> bool:
    when = await app.store.scheduled_at(rid)
    return when is not None and when > at


async def bot_alone_in_a_lobby_is_nobody_waiting(
    make_server: Callable[..., Awaitable[Any]], redis: str | None = None, told_within: float = DEADLINE
) -> None:
    """The test body of a lobby left with a bot alone: on this module's Redis, or on the one at
    ``redis`` (test_lobby_presence_cluster.py's Redis Cluster); the bot's connection is told
    within `told_within` seconds."""
    settings: dict[str, Any] = dict(lobby_away_ms=AWAY_MS)
    if redis is not None:
        settings["redis"] = redis
    app = await make_server(**settings)
    ada = await player(app.ws_url, "ada")
    eve = await player(app.ws_url, "eve")
    rid = (await ada.request("create", game=GAME, seats=3))["race"]
    # A bot identity, as the server mints them for a bot worker, joins over a socket of its own.
    bot_pid, bot_token = await BotQueue(app.store.redis).new_bot("greedy", "Greedy bot", 600)
    bot = await Raw.open(app.ws_url)
    await bot.hello(token=bot_token)
    assert (await bot.request("join", race=rid))["t"] == "race"
    await ada.close()
    await until(lambda: _not_listed(eve, rid), what="the lobby of a bot alone left the list")
    await until(lambda: _empty(app, rid), what="the bot's seat given back too")
    assert await app.store.player_races(bot_pid) == []
    # The bot's connection was told: a snapshot of the lobby without it.
    await bot.wait(lambda f: f.get("t") == "race" and f.get("race") == rid and not f["players"], told_within)
    await asyncio.gather(bot.close(), eve.close())


async def test_a_bot_alone_in_a_lobby_is_nobody_waiting(make_server):
    await bot_alone_in_a_lobby_is_nobody_waiting(make_server)


def late_pubsub(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every published message (race events, players' notices) reaches this process LATE_S after
    it was published (the cluster's PUBLISH crosses the cluster bus; a loaded machine delays its
    reader). The list's one number counts the messages on their way."""
    from server.handlers.fanout import Fanout

    on_bus = Fanout.on_bus
    pending = [0]

    def arrive(self: Fanout, channel: bytes, data: bytes) -> None:
        pending[0] -= 1
        on_bus(self, channel, data)

    def late(self: Fanout, channel: bytes, data: bytes) -> None:
        pending[0] += 1
        asyncio.get_running_loop().call_later(LATE_S, arrive, self, channel, data)

    monkeypatch.setattr(Fanout, "on_bus", late)
    return pending


async def test_a_bot_alone_is_told_its_seat_was_given_back_when_pubsub_is_late(make_server, monkeypatch):
    """The bot's connection is told that its seat was given back, though the published copy of
    that change comes after the process took the bot out of the race's room (server/handlers/
    presence.py `_release`: the cluster test failed so once, on a loaded machine)."""
    late_pubsub(monkeypatch)
    await bot_alone_in_a_lobby_is_nobody_waiting(make_server, told_within=10 * LATE_S + 5)


async def test_a_late_seat_notice_does_not_put_a_player_back_in_a_race_they_left(make_server):
    """The notice of a player's new seat (`seated`, on their channel) may come after they left
    the race (a late bus): it must not make their connections members of it again, where they
    would get the events of a race they are not in."""
    app = await make_server(lobby_away_ms=60_000)
    ada = await player(app.ws_url, "ada")
    rid = (await ada.request("create", game=GAME, seats=3))["race"]
    await ada.request("leave", race=rid)
    sessions = app.service.players[ada.player]
    assert all(rid not in c.races for c in sessions)
    await app.service.fanout.seated(ada.player, rid)  # the create's notice, come only now
    assert all(rid not in c.races for c in sessions)
    assert rid not in app.service.local
    await ada.close()


async def test_another_tab_is_told_its_player_left_when_pubsub_is_late(make_server, monkeypatch):
    """A player in a lobby on two connections leaves on one: the other is told (a snapshot
    without the player), though the published copy comes after it left the room; the one that
    asked gets its reply and no extra event. The late notice of the player's seat (sent when
    the race was created) does not put their connections back in the race they left."""
    pending = late_pubsub(monkeypatch)
    app = await make_server(lobby_away_ms=60_000)
    ada = await player(app.ws_url, "ada")
    rid = (await ada.request("create", game=GAME, seats=3))["race"]
    tab = await Raw.open(app.ws_url)
    await tab.hello(token=ada.token)
    assert (await tab.request("resync", race=rid))["t"] == "state"
    left = await ada.request("leave", race=rid)
    assert left["t"] == "race" and not left["players"]
    told = await tab.wait(
        lambda f: f.get("t") == "race" and f.get("race") == rid and not f["players"], 10 * LATE_S + 5
    )
    assert "rid" not in told
    assert [f for f in ada.unread if f.get("t") == "race" and "rid" not in f and not f["players"]] == []
    await until(lambda: pending[0] == 0, what="the late messages delivered")
    await asyncio.gather(ada.close(), tab.close())


async def test_a_person_still_connected_keeps_the_lobby_listed(make_server):
    app = await make_server(lobby_away_ms=AWAY_MS)
    ada = await player(app.ws_url, "ada")
    bob = await player(app.ws_url, "bob")
    eve = await player(app.ws_url, "eve")
    rid = (await ada.request("create", game=GAME, seats=3))["race"]
    assert (await bob.request("join", race=rid))["t"] == "race"
    await ada.close()  # the host leaves; bob still waits there
    await until(
        lambda: _scheduled_after(app, rid, app.service.now_ms() + AWAY_MS // 2),
        what="the clock looked after ada left and found bob",
    )
    assert await seated(app, rid) == [ada.player, bob.player]
    assert rid in await listed(eve)
    await asyncio.gather(bob.close(), eve.close())


async def test_a_lobby_of_a_process_that_died_is_given_back_by_another(make_server, serve_process):
    """No lobby is held by a dead process: its connections count until their counts lapse
    (30 s, hurried here by moving their expiry), then any other process's sweeper gives the seat back."""
    app = await make_server(lobby_away_ms=AWAY_MS)
    url, proc = serve_process("--lobby-away-ms", str(AWAY_MS))
    ada = await player(url, "ada")
    eve = await player(app.ws_url, "eve")
    rid = (await ada.request("create", game=GAME))["race"]
    assert rid in await listed(eve)
    os.kill(proc.pid, signal.SIGKILL)  # no close, no clean-up: the process is gone
    await asyncio.to_thread(proc.wait)
    await asyncio.gather(ada.close(), return_exceptions=True)
    r: aioredis.Redis = app.store.redis
    assert rid in await listed(eve)  # the dead process's count of ada still holds
    key = conns_key(player_conns_name(ada.player))
    fields = await r.hgetall(key)
    assert fields, "ada's connection was counted"
    await r.hset(key, mapping={f: 0 for f in fields if must_be(f, bytes).endswith(b":t")})  # lapsed
    # And no clock either, as for a lobby stored by a version before the away clock: the list
    # that leaves it out gives it one.
    await r.zrem(keys.TIMERS, rid)
    await until(lambda: _not_listed(eve, rid), what="the dead process's lobby left the list")
    await until(lambda: _empty(app, rid), what="its seat given back by the live process")
    await until(lambda: app.service.metrics.lobbies_released == 1, what="counted where it was done")
    await eve.close()


async def test_a_lobby_check_keeps_a_countdown_started_since_it_read_the_lobby(make_server, monkeypatch):
    """A lobby's away-clock tick (another process's) read the lobby; its players readied before
    it wrote its next look, a grace away. Were that written over the countdown's timer, the race
    would start a grace late if the process that started the countdown died."""
    # A countdown that outlasts the test (one that ended before the last look, on a loaded
    # machine, moved the timer on to the race's deadline), and ends well before the grace.
    app = await make_server(lobby_away_ms=60_000, countdown_ms=30_000)
    ada, bob = await player(app.ws_url, "ada"), await player(app.ws_url, "bob")
    rid = (await ada.request("create", game=GAME, seats=2))["race"]
    await bob.request("join", race=rid)
    store = app.store
    async with HeldTick(app, rid, monkeypatch):  # another process's sweep, held after its read
        for c in (ada, bob):
            await c.request("ready", race=rid)
        _now, race = await store.load_race(rid)
        assert race is not None and race.status == "countdown"
        assert await store.scheduled_at(rid) == race.starts_at
    assert await store.scheduled_at(rid) == race.starts_at  # not a grace later
    await asyncio.gather(ada.close(), bob.close())
