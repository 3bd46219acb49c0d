"""Rematch over real sockets: two people finish a race, one asks for a rematch, the other
gets the offer and accepts it (`join`), and the new race starts with the same settings.
Asking again (either player) gives the same new race, whichever process they are on."""

from __future__ import annotations

import pytest

import client
from protocol import messages as m

pytestmark = pytest.mark.timeout(60)


async def finished_race(a: client.Client, b: client.Client, private: bool) -> m.RaceSnapshot:
    snap = await a.create("racing-aces", seats=2, time_limit_s=45, private=private)
    await b.join(snap.race, invite=snap.invite)
    await a.ready(snap.race)
    await b.ready(snap.race)
    for c in (a, b):
        await c.wait_for(m.Started, lambda ev: ev.race == snap.race, timeout=20)
        await c.finish(snap.race)
    for c in (a, b):
        await c.wait_for(m.End, lambda ev: ev.race == snap.race, timeout=20)
    return snap


async def test_two_players_rematch(make_server) -> None:
    one = await make_server()
    two = await make_server()  # a second process on the same Redis
    async with client.connect(one.ws_url, name="ada") as a, client.connect(two.ws_url, name="bob") as b:
        old = await finished_race(a, b, private=True)

        new = await a.request(m.Rematch(race=old.race))
        assert new.race != old.race and new.host == a.player
        assert [p.player for p in new.players] == [a.player]
        assert (new.game, new.seats, new.time_limit_s, new.private) == ("racing-aces", 2, 45, True)

        offer = await b.wait_for(m.RematchOffer, lambda ev: ev.race == old.race, timeout=20)
        assert (offer.rematch, offer.by, offer.name) == (new.race, a.player, "ada")
        assert not any(isinstance(e, m.RematchOffer) for e in a.pending_events())  # not to the asker

        assert offer.invite == new.invite and new.invite  # private: the invite comes with the offer
        joined = await b.join(offer.rematch, invite=offer.invite)
        assert [p.player for p in joined.players] == [a.player, b.player]
        again = await a.request(m.Rematch(race=old.race))  # a second click: the same race
        assert again.race == new.race
        also = await b.request(m.Rematch(race=old.race))  # the other player asks too: seated there
        assert also.race == new.race and len(also.players) == 2

        await a.ready(new.race)
        await b.ready(new.race)
        for c in (a, b):
            start = await c.wait_for(m.Started, lambda ev: ev.race == new.race, timeout=20)
            assert start.commitment != old.commitment  # a new deal


async def test_rematch_refusals(server) -> None:
    async with client.connect(server.ws_url, name="ada") as a, client.connect(server.ws_url, name="bob") as b:
        snap = await a.create("fours-up", seats=2)
        with pytest.raises(client.ServerError) as e:
            await a.request(m.Rematch(race=snap.race))
        assert e.value.code == "race-not-over"
        old = await finished_race(a, b, private=False)
        async with client.connect(server.ws_url, name="cyd") as c:
            with pytest.raises(client.ServerError) as e:
                await c.request(m.Rematch(race=old.race))
            assert e.value.code == "not-in-race"
        with pytest.raises(client.ServerError) as e:
            await a.request(m.Rematch(race="nosuchrace"))
        assert e.value.code == "no-such-race"
