"""A returning player (real Redis, real sockets on 127.0.0.1).

- An account session lives from its last use: each hello with its token renews it
  (docs/protocol.md §9), so a token used within its lifetime keeps working past
  the expiry it was given at login; one left unused expires.
- A rematch of an old race whose rematch was already played is a fresh lobby, not
  the spent race (docs/protocol.md §3 `rematch`), once for all processes.
"""

from __future__ import annotations

import asyncio

import pytest
import redis.asyncio as aioredis
from argon2 import PasswordHasher
from wsclient import Raw, player

import client
from protocol import messages as m
from server.ratings import keys as rkeys
from server.ratings.accounts_store import Accounts
from server.ratings.common import DAY_MS

pytestmark = pytest.mark.timeout(90)

CHEAP_HASH = dict(password_hash_passes=1, password_hash_memory_kib=1024)
PW = "correct horse battery"
HASHER = PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)  # cheap: behaviour, not cost


class Clock:
    def __init__(self, ms: int = 1_700_000_000_000) -> None:
        self.ms = ms

    def __call__(self) -> int:
        return self.ms


@pytest.fixture
async def r(clean_redis):
    c = aioredis.Redis.from_url(clean_redis)
    yield c
    await c.aclose()


# --- account sessions: sliding expiry -------------------------------------------------------


async def test_a_used_account_session_outlives_its_first_expiry(r) -> None:
    clock = Clock()
    accounts = Accounts(r, clock=clock, hasher=HASHER, session_ttl_ms=1000)
    login = await accounts.claim("pguest1", "Ada", PW)
    for _ in range(5):  # a hello every 0.6 lifetimes: 3 lifetimes past the login's expiry
        clock.ms += 600
        sess = await accounts.resume(login.token)
        assert sess is not None and (sess.player, sess.name) == ("pguest1", "Ada")
        assert await accounts.session(login.token) is not None
        assert await accounts.session_alive("pguest1", sess.session)
    # The sessions hash lives at least as long as the session it holds.
    assert await r.pttl(rkeys.sessions("pguest1")) >= 1000 - 100
    # Checking without a hello (`session`) does not renew: unused for a lifetime, it ends.
    clock.ms += 999
    assert await accounts.session(login.token) is not None
    clock.ms += 1
    assert await accounts.session(login.token) is None
    assert await accounts.resume(login.token) is None  # nor does a hello bring it back


async def test_renewing_never_brings_back_a_revoked_session(r) -> None:
    clock = Clock()
    accounts = Accounts(r, clock=clock, hasher=HASHER)
    login = await accounts.claim("pguest1", "Ada", PW)
    other = await accounts.login("ada", PW, "10.0.0.1")
    await accounts.logout(login.token)
    assert await accounts.resume(login.token) is None
    await accounts.logout_everywhere("pguest1")
    assert await accounts.resume(other.token) is None
    assert not await r.exists(rkeys.sessions("pguest1"))
    assert await accounts.resume("pguest1.forged") is None and await accounts.resume("garbage") is None


async def test_hello_renews_an_account_token_past_its_original_expiry(make_server) -> None:
    app = await make_server(**CHEAP_HASH)
    url = app.ws_url
    ahead = {"days": 0}  # how far the accounts' clock is ahead of the server's

    def clock() -> int:
        return app.service.now_ms() + ahead["days"] * DAY_MS

    app.accounts.clock = clock
    guest = await player(url, "ada")
    acct = await guest.request("claim", name="ada", password=PW)
    assert acct["t"] == "account", acct
    await guest.close()
    ttl_days = app.accounts.session_ttl_ms // DAY_MS
    assert ttl_days == 30  # docs/protocol.md §9

    # A player back every 20 days: past the login's 30 days, and well past, still logged in.
    for days in (20, 40, 60):
        ahead["days"] = days
        c = await Raw.open(url)
        w = await c.hello(token=acct["token"])
        assert w["player"] == acct["player"] and w["name"] == "ada"
        assert (await c.request("profile"))["t"] != "error"  # logged in
        await c.close()
    # Away for more than 30 days since the last hello: the token has expired.
    ahead["days"] = 60 + ttl_days
    c = await Raw.open(url)
    err = await c.request("hello", v=1, token=acct["token"])
    assert err["t"] == "error" and err["code"] == "bad-token", err
    await c.close()


# --- rematch of a race whose rematch was played ---------------------------------------------


async def play_out(a: client.Client, b: client.Client, rid: str) -> None:
    """Both seated in the lobby `rid`: ready, start, finish, end."""
    await a.ready(rid)
    await b.ready(rid)
    for c in (a, b):
        await c.wait_for(m.Started, lambda ev: ev.race == rid, timeout=20)
        await c.finish(rid)
    for c in (a, b):
        await c.wait_for(m.End, lambda ev: ev.race == rid, timeout=20)


async def test_rematch_after_a_finished_rematch_is_a_new_lobby(make_server) -> None:
    one = await make_server()
    two = await make_server()  # a second process on the same Redis
    async with client.connect(one.ws_url, name="ada") as a, client.connect(two.ws_url, name="bob") as b:
        first = await a.create("racing-aces", seats=2, time_limit_s=45, private=True)
        await b.join(first.race, invite=first.invite)
        await play_out(a, b, first.race)

        second = await a.request(m.Rematch(race=first.race))
        offer = await b.wait_for(m.RematchOffer, lambda ev: ev.rematch == second.race, timeout=20)
        await b.join(second.race, invite=offer.invite)
        await play_out(a, b, second.race)

        # The rematch of the first race again, from the other player: a fresh lobby, not `second`.
        third = await b.request(m.Rematch(race=first.race))
        assert third.race not in (first.race, second.race)
        assert third.status == "lobby" and third.host == b.player
        assert [p.player for p in third.players] == [b.player]
        assert (third.game, third.seats, third.time_limit_s, third.private) == ("racing-aces", 2, 45, True)
        # ...offered to the other player as a first rematch is.
        offer = await a.wait_for(m.RematchOffer, lambda ev: ev.rematch == third.race, timeout=20)
        assert (offer.race, offer.by, offer.invite) == (first.race, b.player, third.invite)
        # Asking again (on the other process) while it waits in its lobby: the same race, seated.
        again = await a.request(m.Rematch(race=first.race))
        assert again.race == third.race and len(again.players) == 2
        await play_out(a, b, third.race)

        # Both players asking at once, on two processes, once the rematch is spent: one new race.
        fourth, also = await asyncio.gather(
            a.request(m.Rematch(race=first.race)), b.request(m.Rematch(race=first.race))
        )
        assert fourth.race == also.race and fourth.race not in (first.race, second.race, third.race)
        snap = (await a.resync(fourth.race)).race
        assert snap.status == "lobby" and {p.player for p in snap.players} == {a.player, b.player}
