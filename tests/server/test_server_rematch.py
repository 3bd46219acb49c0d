"""Rematch over real sockets: two people finish a race, one asks for a rematch, the other
gets the offer and accepts it (`join`), and the new race starts with the same settings.
Asking again (either player) gives the same new race, whichever process they are on."""

from __future__ import annotations

import pytest
from waiting import until

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


async def test_a_public_rematch_is_unlisted_while_its_players_may_accept(make_server, monkeypatch) -> None:
    """A stranger browsing the list must not take the rival's seat before the rival could
    accept: the rematch of a public race is listed only REMATCH_UNLISTED_MS after it was made."""
    from server.core import bots as B

    monkeypatch.setattr(B, "REMATCH_UNLISTED_MS", 1500)
    app = await make_server()
    async with (
        client.connect(app.ws_url, name="ada") as a,
        client.connect(app.ws_url, name="bob") as b,
        client.connect(app.ws_url, name="eve") as eve,
    ):
        old = await finished_race(a, b, private=False)
        made_at = await app.store.time_ms()
        new = await a.request(m.Rematch(race=old.race))
        listing = await eve.request(m.Races())
        if await app.store.time_ms() < made_at + B.REMATCH_UNLISTED_MS:
            assert new.race not in [r.race for r in listing.races]
        offer = await b.wait_for(m.RematchOffer, lambda ev: ev.race == old.race, timeout=20)
        assert offer.rematch == new.race  # the rival may still accept it by its id
        # Once the hold is over it is an open lobby like any other (a seat is still free).
        await until(lambda: _listed(eve, new.race), what="the rematch listed after its hold")
        assert await app.store.time_ms() >= made_at + B.REMATCH_UNLISTED_MS - 50


async def _listed(c: client.Client, rid: str) -> bool:
    return rid in [r.race for r in (await c.request(m.Races())).races]
