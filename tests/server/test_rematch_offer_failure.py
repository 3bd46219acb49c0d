"""A rematch whose offer to one rival failed (a Redis blip, after the new race was made with
its host seated: server/handlers/rematch.py) still answers its host with that race and
offers it to the other rivals. It used to fail the request ("no effect", though the host
sat in the new lobby) and offer it to nobody after that rival. The failure is injected
into the real server's store; the rest is real."""

from __future__ import annotations

from typing import Any

import pytest

import client
from protocol import messages as m

pytestmark = pytest.mark.timeout(60)


def failing_notice_once(app: Any, pid: str) -> list[str]:
    """The store's `publish_player` fails once for `pid`: the players it failed for."""
    store = app.service.store
    real = store.publish_player
    failed: list[str] = []

    async def flaky(who: str, frame: bytes) -> None:
        if who == pid and not failed:
            failed.append(who)
            raise ConnectionError("redis blip while offering the rematch")
        await real(who, frame)

    store.publish_player = flaky
    return failed


async def test_a_failed_offer_neither_fails_the_rematch_nor_skips_the_others(server) -> None:
    url = server.ws_url
    async with (
        client.connect(url, name="ada") as a,
        client.connect(url, name="bob") as b,
        client.connect(url, name="cyd") as c,
    ):
        old = await a.create("racing-aces", seats=3, time_limit_s=45)
        for x in (b, c):
            await x.join(old.race)
        for x in (a, b, c):
            await x.ready(old.race)
        for x in (a, b, c):
            await x.wait_for(m.Started, lambda ev: ev.race == old.race, timeout=20)
            await x.finish(old.race)
        for x in (a, b, c):
            await x.wait_for(m.End, lambda ev: ev.race == old.race, timeout=20)

        failed = failing_notice_once(server, b.player)
        new = await a.request(m.Rematch(race=old.race))
        assert failed == [b.player]
        assert new.race != old.race and [p.player for p in new.players] == [a.player]
        offer = await c.wait_for(m.RematchOffer, lambda ev: ev.race == old.race, timeout=20)
        assert offer.rematch == new.race
        also = await b.request(m.Rematch(race=old.race))  # bob, not told, finds it all the same
        assert also.race == new.race
