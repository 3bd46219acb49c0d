"""Claiming an account on a real 3-master Redis Cluster: the guest→account path over the wire
on two server processes, the account's tokens, the claims bucket per address group, and the
seats queue entries claim (``pl:{PID}:claims:HOLD``), whose keys spread over the nodes."""

from __future__ import annotations

import asyncio

import pytest
from argon2 import PasswordHasher
from must import must_be
from test_server_accounts import CHEAP_HASH, account, closed_revoked, logged_in
from waiting import until
from wsclient import Raw, player

from server.ratings.accounts import AccountError, LoginPolicy
from server.ratings.accounts_store import Accounts
from server.storage.cluster import cold_client
from server.storage.keys import profile_key, session_key
from server.storage.players import quick_hold, rated_hold

pytestmark = pytest.mark.timeout(180)

GAME = "racing-aces"
PW = "correct horse"


async def test_a_claimed_guest_is_the_account_on_every_process(cluster_url, make_server):
    app1 = await make_server(redis=cluster_url, **CHEAP_HASH)
    app2 = await make_server(redis=cluster_url, **CHEAP_HASH)
    guest = await player(app1.ws_url, "ada")
    pid, guest_token = guest.player, guest.token
    rid = (await guest.request("create", game=GAME, seats=2))["race"]  # kept under the guest's id
    r = app1.store.redis
    guest_session = must_be(await r.get(session_key(guest_token)), bytes)
    acct = await guest.request("claim", name="ada", password=PW)
    assert acct["t"] == "account" and acct["player"] == pid and acct["name"] == "ada"
    assert (await guest.request("claim", name="ada2", password=PW))["code"] == "already-account"
    await guest.close()
    assert not await r.exists(session_key(guest_token))  # the claim ended the guest's session

    # The guest's token resumes nothing on the other process, not even left over from a claim
    # made before claims ended it (its resume reads the account's record, in another slot, in
    # the same round trip): it is ended there, and the account's name and records' life kept.
    await r.set(session_key(guest_token), guest_session, ex=3600)
    stale = await Raw.open(app2.ws_url)
    assert (await stale.request("hello", v=1, token=guest_token, name="EVIL"))["code"] == "bad-token"
    assert not await r.exists(session_key(guest_token))
    assert await r.hget(profile_key(pid), "name") == b"ada"
    assert await r.ttl(profile_key(pid)) > app1.settings.fresh_session_ttl_s
    # The account's token resumes it there.
    c = await Raw.open(app2.ws_url)
    w = await c.hello(token=acct["token"])
    assert w["player"] == pid and w["name"] == "ada" and rid in w["races"]
    assert (await c.request("profile"))["name"] == "ada"

    # The name is the account's, whatever its case, on either process.
    bob = await player(app2.ws_url, "bob")
    assert (await bob.request("claim", name="ADA", password="another one"))["code"] == "name-taken"
    login = await bob.request("login", name="Ada", password=PW)
    assert login["t"] == "account" and login["player"] == pid
    second = await Raw.open(app1.ws_url)
    assert (await second.hello(token=login["token"]))["player"] == pid

    # Log out everywhere: the other process closes its connection (the notice crosses the
    # cluster's pub/sub), and neither token says hello any more.
    assert (await c.request("logout_all"))["t"] == "ok"
    await closed_revoked(second)
    for token in (acct["token"], login["token"]):
        again = await Raw.open(app1.ws_url)
        assert (await again.request("hello", v=1, token=token))["code"] == "bad-token"
        await again.close()
    await asyncio.gather(stale.close(), c.close(), bob.close(), second.close())


async def test_claims_from_one_address_are_limited_on_a_cluster(cluster_url, make_server):
    """Beyond CLAIM_POLICY's bucket (5 at once), `claim-limited` with `retry_ms`, whichever
    process the claims come to; loopback is exempt by default, so these servers exempt nobody."""
    app1 = await make_server(redis=cluster_url, limit_exempt="", **CHEAP_HASH)
    app2 = await make_server(redis=cluster_url, limit_exempt="", **CHEAP_HASH)
    guests = [await player((app1, app2)[i % 2].ws_url, f"claimer{i}") for i in range(6)]
    replies = [await g.request("claim", name=f"claimer{i}", password=PW) for i, g in enumerate(guests)]
    assert [r["t"] for r in replies] == ["account"] * 5 + ["error"]
    assert replies[5]["code"] == "claim-limited" and replies[5]["retry_ms"] > 0
    assert (await guests[5].request("logout"))["code"] == "not-logged-in"  # still a guest
    await asyncio.gather(*(g.close() for g in guests))


async def test_the_claims_bucket_is_one_per_address_group(cluster_url):
    """An IPv6 client is counted by its /64 and an IPv4-mapped address as the IPv4 one: the
    bucket's key is the group's, on whichever node its slot is."""
    r = cold_client(cluster_url)
    await r.initialize()
    hasher = PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)
    accounts = Accounts(r, hasher=hasher, claim_policy=LoginPolicy(capacity=2, refill_ms=600_000))
    n = iter(range(100))

    async def claim(address: str) -> str:
        i = next(n)
        try:
            await accounts.claim(f"p{i}", f"name{i}", PW, address)
        except AccountError as exc:
            assert must_be(exc.extra["retry_after_ms"], int) > 0
            return exc.code
        return "ok"

    try:
        assert [await claim(a) for a in ("2001:db8::1", "2001:db8::2:3", "2001:db8::ffff")] == [
            "ok",
            "ok",
            "claim-limited",
        ]
        assert await claim("2001:db8:0:1::1") == "ok"  # another /64
        assert [await claim(a) for a in ("192.0.2.7", "::ffff:192.0.2.7", "192.0.2.7")] == [
            "ok",
            "ok",
            "claim-limited",
        ]
    finally:
        await r.aclose()


async def test_queue_entries_claim_and_give_back_their_seats_on_a_cluster(cluster_url, make_server):
    """The seat of a waiting entry (casual `quick_hold`, rated `rated_hold`) is claimed with a
    token kept in the player's slot, and one in the queue's (``{quick:G:S}``, ``{mm:G}``):
    each script stays in one slot, and the seat goes with the entry."""
    app1 = await make_server(redis=cluster_url, max_races_per_player=2, **CHEAP_HASH)
    app2 = await make_server(redis=cluster_url, max_races_per_player=2, **CHEAP_HASH)
    sessions = app1.store.sessions
    ada, bob = await account(app1.ws_url, "ada"), await account(app2.ws_url, "bob")
    assert (await ada.request("quick", game=GAME, seats=3))["t"] == "queued"
    assert (await ada.request("quick", game=GAME, rated=True))["t"] == "queued"
    assert set(await sessions.seats(ada.player)) == {quick_hold(GAME, 3), rated_hold(GAME)}
    assert (await ada.request("create", game=GAME))["code"] == "too-many-races"
    assert (await ada.request("unqueue", game=GAME))["t"] == "ok"
    assert await sessions.seats(ada.player) == []

    # A rated pair across the two processes: each one's seat is its race's, nothing else.
    for c in (ada, bob):
        assert (await c.request("quick", game=GAME, rated=True))["t"] == "queued"
    snaps = [await c.wait(lambda f: f.get("t") == "race" and f.get("rated") is True) for c in (ada, bob)]
    assert snaps[0]["race"] == snaps[1]["race"]
    for c in (ada, bob):
        assert await sessions.seats(c.player) == [snaps[0]["race"]]

    # A rated entry's seat goes with its last connection.
    cy = await account(app2.ws_url, "cyd")
    assert (await cy.request("quick", game=GAME, rated=True))["t"] == "queued"
    assert await sessions.seats(cy.player) == [rated_hold(GAME)]
    await cy.close()

    async def cy_seatless() -> bool:
        return await sessions.seats(cy.player) == []

    await until(cy_seatless, what="the closed entry's seat given back")

    # And with its login session: revoked on the other process, the entry leaves the pool.
    dee = await account(app1.ws_url, "dee")
    other = await logged_in(app2.ws_url, dee, "dee")
    assert (await dee.request("quick", game=GAME, rated=True))["t"] == "queued"
    assert await sessions.seats(dee.player) == [rated_hold(GAME)]
    assert (await other.request("logout_all"))["t"] == "ok"

    async def dee_seatless() -> bool:
        return await sessions.seats(dee.player) == []

    await until(dee_seatless, what="the revoked entry's seat given back")
    assert not await app1.rated.pool.has(GAME, dee.player)
    await asyncio.gather(ada.close(), bob.close(), dee.close(), other.close())
