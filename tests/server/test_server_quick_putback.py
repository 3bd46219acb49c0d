"""A quick-match group put back in its queue (its race could not be made, quick.lua 'u'): every
entry still leaves with the last connection of its player that holds it (docs/protocol.md §3
`quick`), whatever happened while the group was out."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from injected import fail_first
from seat_probe import seat_set
from test_server_quick_queue import queued, same_player, seated, waiting
from test_server_rated_pool import close, closes_seen
from waiting import until
from wsclient import player

from server.handlers import quick_match


@pytest.fixture(autouse=True)
def arrivals_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """A group put back is formed again by an arrival only (`form_again` waits an hour): what
    waits after a put-back holds however slow the machine."""
    monkeypatch.setattr(quick_match, "FORM_AGAIN_S", 3600.0)


def deals_fail_held(app: Any) -> tuple[asyncio.Event, asyncio.Event]:
    """The next group's every try at a race fails, the first held until the test says so:
    (reached, go_on)."""
    lobby = app.service.lobby
    fail_first(lobby, "new_deal", quick_match.SEAT_ATTEMPTS - 1)
    flaky = lobby.new_deal
    reached, go_on = asyncio.Event(), asyncio.Event()
    calls = {"n": 0}

    async def held(*args: Any, **kw: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == 1:
            reached.set()
            await go_on.wait()
            raise ConnectionError("blip")
        return await flaky(*args, **kw)

    lobby.new_deal = held
    return reached, go_on


async def test_a_player_whose_quick_takes_a_group_ahead_of_them_still_leaves_with_their_connection(
    make_server, clean_redis
) -> None:
    app = await make_server()
    reached, go_on = deals_fail_held(app)
    seen = closes_seen(app)
    ada, bob, cy, dan = [await player(app.ws_url, name) for name in ("ada", "bob", "cy", "dan")]
    for c in (ada, bob):
        await queued(c)
    await reached.wait()
    await queued(cy)  # while ada and bob are out
    go_on.set()
    await until(lambda: _is(waiting(app), [ada.player, bob.player, cy.player]), what="the put-back")
    await queued(dan)  # takes ada and bob out: cy and dan wait
    await ada.wait(seated)
    assert await waiting(app) == [cy.player, dan.player]
    await close(dan, seen)
    assert await waiting(app) == [cy.player]
    assert not await seat_set(clean_redis, dan.player)


async def test_an_unqueue_while_out_keeps_its_connections_off_a_new_entry(make_server, clean_redis) -> None:
    app = await make_server()
    reached, go_on = deals_fail_held(app)
    seen = closes_seen(app)
    a1, bob = await player(app.ws_url, "ada"), await player(app.ws_url, "bob")
    a2 = await same_player(app.ws_url, a1)
    for c in (a1, bob):
        await queued(c)
    await reached.wait()
    assert (await a1.request("unqueue", game="fours-up"))["t"] == "ok"
    await queued(a2)  # a new entry, held by a2 alone
    go_on.set()
    await until(lambda: _is(waiting(app), [bob.player, a1.player]), what="the put-back")
    await close(a2, seen)
    assert await waiting(app) == [bob.player]  # a1 unqueued: it never held the new entry
    await close(a1, seen)
    assert not await seat_set(clean_redis, a1.player)


async def _is(got: Any, expected: list[str]) -> bool:
    return await got == expected


async def test_an_unqueue_holds_for_every_entry_of_the_player_out_at_the_time(
    make_server, clean_redis
) -> None:
    """ada's entry is out (bob's group, its race failing); she unqueues, queues again on another
    connection and is taken out again, with cy, and seated. Her first entry is not put back:
    the second take-out must not undo the unqueue for the first."""
    app = await make_server()
    lobby = app.service.lobby
    real = lobby.new_deal
    reached, go_on = asyncio.Event(), asyncio.Event()
    calls = {"n": 0}

    async def second_only(*args: Any, **kw: Any) -> Any:
        # Call 1 (ada and bob) is held, then it and its retries (calls 3 and 4) fail; call 2 is
        # ada and cy's, made while the first group is out.
        calls["n"] += 1
        call = calls["n"]
        if call == 1:
            reached.set()
            await go_on.wait()
        if call != 2:
            raise ConnectionError("blip")
        return await real(*args, **kw)

    lobby.new_deal = second_only
    a1, bob, cy = [await player(app.ws_url, name) for name in ("ada", "bob", "cy")]
    a2 = await same_player(app.ws_url, a1)
    for c in (a1, bob):
        await queued(c)
    await reached.wait()
    assert (await a1.request("unqueue", game="fours-up"))["t"] == "ok"
    await queued(a2)
    await queued(cy)
    await a2.wait(seated)
    assert await waiting(app) == []
    go_on.set()
    await until(lambda: _nonempty(waiting(app)), what="the put-back")
    assert await waiting(app) == [bob.player]
    assert calls["n"] == 2 + quick_match.SEAT_ATTEMPTS - 1


async def _nonempty(got: Any) -> bool:
    return bool(await got)
