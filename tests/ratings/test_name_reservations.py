"""The name reservations that claims stop half-way leave behind (server/ratings/names.py): none
outlives RESERVATION_LAPSE_MS. One whose account was never made is released (the name is free
again, for claims and guests' names alike); one whose account was made (an unfinished claim,
`claiming`) is confirmed: the name stays the account's. A reservation's note used to stay in
`{accounts}:reserved`, and a dead one's name in the index, until a claim of it came."""

from __future__ import annotations

from typing import Any

import pytest
import redis.asyncio as aioredis
from injected import Blip
from redis_replies import text
from waiting import until

from server.ratings import keys
from server.ratings.accounts import AccountError
from server.ratings.accounts_store import Accounts
from server.ratings.names import RESERVATION_LAPSE_MS

PW = "correct horse battery"


def failing(obj: Any, name: str) -> list[bool]:
    """`obj.name(...)` raises `Blip` while `[True]` (the list returned) holds; then works."""
    real = getattr(obj, name)
    on = [True]

    async def flaky(*args: Any, **kw: Any) -> Any:
        if on[0]:
            raise Blip(f"redis blip in {name}")
        return await real(*args, **kw)

    setattr(obj, name, flaky)
    return on


async def notes(r: Any) -> dict[str, str]:
    return {text(k): text(v) for k, v in (await r.hgetall(keys.RESERVED)).items()}


async def test_a_claim_that_never_made_its_account_frees_its_name_once_lapsed(r, clock, accounts):
    failing(accounts, "_create")
    with pytest.raises(Blip):
        await accounts.claim("p1", "Ada", PW)
    assert await notes(r) == {"ada": str(clock.ms)} and await accounts.names.held(["ada"])
    clock.ms += RESERVATION_LAPSE_MS - 1
    assert await accounts.names.settle_lapsed() == 0 and await accounts.names.held(["ada"])
    clock.ms += 1
    assert await accounts.names.settle_lapsed() == 1
    assert await notes(r) == {} and not await accounts.names.held(["ada"])
    assert await r.hget(keys.NAMES, "ada") is None
    assert await accounts.names.settle_lapsed() == 0


async def test_an_unfinished_claims_name_stays_its_accounts_once_lapsed(r, clock, accounts):
    confirm = failing(accounts.names, "confirm")
    with pytest.raises(Blip):
        await accounts.claim("p1", "Ada", PW)
    assert await r.hget(keys.account("p1"), "claiming") is not None and "ada" in await notes(r)
    clock.ms += RESERVATION_LAPSE_MS
    assert await accounts.names.settle_lapsed() == 1
    assert await notes(r) == {} and text(await r.hget(keys.NAMES, "ada")) == "p1"
    with pytest.raises(AccountError) as e:
        await accounts.claim("p2", "Ada", PW)
    assert e.value.code == "name-taken"
    assert (await accounts.login("ada", PW, "10.0.0.1")).player == "p1"
    confirm[0] = False
    done = await accounts.claim("p1", "Ada", PW)  # the same claim still finishes it
    assert done.player == "p1" and await r.hget(keys.account("p1"), "claiming") is None


async def test_a_name_reserved_again_while_it_is_settled_stays_reserved(r, clock, accounts):
    """The player's claim comes again between the sweep's read and its settling: the new
    reservation is a claim in flight, left as it is."""
    failing(accounts, "_create")
    with pytest.raises(Blip):
        await accounts.claim("p1", "Ada", PW)
    clock.ms += RESERVATION_LAPSE_MS
    names = accounts.names
    real_holds = names.holds

    async def claimed_again(player: str, key: str) -> bool:
        assert await names.reserve(key, player)
        return await real_holds(player, key)

    names.holds = claimed_again  # type: ignore[method-assign]
    assert await names.settle_lapsed() == 0
    assert await notes(r) == {"ada": str(clock.ms)} and text(await r.hget(keys.NAMES, "ada")) == "p1"


async def test_a_name_released_under_a_claim_still_making_its_account_is_its_own_again(r, clock, accounts):
    """A claim slower than RESERVATION_LAPSE_MS between its reservation and its account: the
    sweep released the name meanwhile; the claim's confirmation puts it back in the index."""
    names = accounts.names
    real_reserve = names.reserve

    async def slow(key: str, player: str) -> bool:
        made = await real_reserve(key, player)
        clock.ms += RESERVATION_LAPSE_MS
        assert await names.settle_lapsed() == 1 and await r.hget(keys.NAMES, key) is None
        return made

    names.reserve = slow  # type: ignore[method-assign]
    login = await accounts.claim("p1", "Ada", PW)
    assert text(await r.hget(keys.NAMES, "ada")) == "p1" and await notes(r) == {}
    assert (await accounts.login("ada", PW, "10.0.0.1")).player == login.player


async def test_every_server_process_settles_lapsed_reservations(make_server, clean_redis):
    r = aioredis.Redis.from_url(clean_redis)
    try:
        await r.hset(keys.NAMES, mapping={"ada": "pdead", "bob": "pnew"})
        await r.hset(keys.RESERVED, mapping={"ada": 1, "bob": 9_999_999_999_999})  # long ago; in flight
        app = await make_server()
        assert isinstance(app.accounts, Accounts)

        async def settled() -> bool:
            return await r.hget(keys.RESERVED, "ada") is None

        await until(settled, what="the lapsed reservation settled")
        assert await r.hget(keys.NAMES, "ada") is None
        assert text(await r.hget(keys.NAMES, "bob")) == "pnew" and await r.hexists(keys.RESERVED, "bob")
    finally:
        await r.aclose()
