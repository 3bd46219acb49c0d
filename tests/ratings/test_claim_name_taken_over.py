"""A claim slow to make its account after reserving its name (server/ratings/names.py): past
RESERVATION_STALE_MS another player's claim of the name takes the reservation over, makes its
account and is answered. The slow claim then makes its own account and finds the name
another's (`confirm` 0): it used to answer with a token all the same, so that two accounts
held one name, the index giving it to the other. It now fails with `name-taken`, its account
undone: the player is the guest it was (free to claim another name), and nothing of the
winner's is touched."""

from __future__ import annotations

import asyncio

import pytest
from injected import Blip, held_first, slow_first
from redis_replies import text

from server.ratings import keys
from server.ratings.accounts import AccountError
from server.ratings.names import RESERVATION_STALE_MS

PW = "correct horse battery"
OTHER_PW = "another horse battery"


async def assert_only_p2_holds_ada(r, accounts) -> None:
    assert await r.exists(keys.account("p1"), keys.sessions("p1")) == 0
    assert text(await r.hget(keys.NAMES, "ada")) == "p2" and await r.hget(keys.RESERVED, "ada") is None
    assert (await accounts.login("ada", OTHER_PW, "10.0.0.1")).player == "p2"
    assert await accounts.session((await accounts.login("ada", OTHER_PW, "10.0.0.2")).token) is not None
    # The loser is a guest again, free to claim another name.
    assert (await accounts.claim("p1", "Bea", PW)).player == "p1"
    assert text(await r.hget(keys.NAMES, "ada")) == "p2"


async def test_a_slow_claim_whose_name_was_taken_over_fails_as_name_taken(r, clock, accounts):
    reached, go_on = slow_first(accounts, "_create")
    slow = asyncio.create_task(accounts.claim("p1", "Ada", PW))
    await reached.wait()  # p1's reservation made; its account not yet
    clock.ms += RESERVATION_STALE_MS
    won = await accounts.claim("p2", "Ada", OTHER_PW)
    assert won.player == "p2"
    go_on.set()
    with pytest.raises(AccountError) as e:
        await slow
    assert e.value.code == "name-taken"
    assert await accounts.session(won.token) is not None
    await assert_only_p2_holds_ada(r, accounts)


async def test_the_same_claim_again_finds_its_name_taken_over(r, clock, accounts):
    """The claim's account creation failed on the way back (sent, its reply lost), and reached
    Redis only after another claim took the name over: the same claim again, which would
    finish an unfinished claim, fails as `name-taken`."""
    held = held_first(accounts, "_create")
    with pytest.raises(Blip):
        await accounts.claim("p1", "Ada", PW)
    clock.ms += RESERVATION_STALE_MS
    assert (await accounts.claim("p2", "Ada", OTHER_PW)).player == "p2"
    await held.late()
    assert await r.hget(keys.account("p1"), "claiming") is not None
    with pytest.raises(AccountError) as e:
        await accounts.claim("p1", "Ada", PW)
    assert e.value.code == "name-taken"
    await assert_only_p2_holds_ada(r, accounts)


async def test_a_claim_cannot_take_over_a_name_confirmed_since_it_looked(r, clock, accounts):
    """The other side of the takeover: the second claim reads the slow claim's account as not
    made, and the slow claim then makes it and confirms its name before the takeover lands.
    The takeover used to land all the same (two accounts, one name, both with tokens); it is
    refused now: the name is the slow claim's, found confirmed."""
    reached, go_on = slow_first(accounts, "_create")
    slow = asyncio.create_task(accounts.claim("p1", "Ada", PW))
    await reached.wait()
    clock.ms += RESERVATION_STALE_MS
    names = accounts.names
    real_holds = names.holds
    looks = []

    async def overtaken(player: str, key: str) -> bool:
        held = await real_holds(player, key)
        looks.append(player)
        if looks == ["p1", "p1"]:  # the takeover's own look (the first is the claim's cheap one)
            go_on.set()
            assert (await slow).player == "p1"
        return held

    names.holds = overtaken  # type: ignore[method-assign]
    with pytest.raises(AccountError) as e:
        await accounts.claim("p2", "Ada", OTHER_PW)
    assert e.value.code == "name-taken" and looks == ["p1", "p1"]
    assert text(await r.hget(keys.NAMES, "ada")) == "p1" and await r.exists(keys.account("p2")) == 0
    assert (await accounts.login("ada", PW, "10.0.0.1")).player == "p1"
