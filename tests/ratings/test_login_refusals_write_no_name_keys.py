"""A login the address's bucket refuses writes nothing under the name it tried, and a bucket
full again is deleted: one address sending logins with made-up names used to leave a Redis
key per name (25 minutes each), so the address limit did not bound Redis memory."""

from __future__ import annotations

import secrets

import pytest

from server.ratings import keys
from server.ratings.accounts import AccountError, LoginPolicy
from server.ratings.accounts_store import Accounts

PW = "correct horse battery"
ADDRESS = "10.7.7.7"


async def name_buckets(r) -> set[bytes]:
    return {k async for k in r.scan_iter(match="{login:name:*")}


async def test_logins_the_address_refuses_leave_no_name_keys(r, clock, hasher):
    accounts = Accounts(r, clock=clock, hasher=hasher, address_policy=LoginPolicy(2, 30_000))
    for name in ("first", "second"):  # the address's two attempts: checked, and failed
        with pytest.raises(AccountError) as e:
            await accounts.login(name, "wrong password", ADDRESS)
        assert e.value.code == "bad-login"
    assert len(await name_buckets(r)) == 2  # a failed attempt counts against its name
    for _ in range(50):
        with pytest.raises(AccountError) as e:
            await accounts.login("junk" + secrets.token_hex(8), "wrong password", ADDRESS)
        assert e.value.code == "login-limited" and e.value.extra["retry_after_ms"]
    assert len(await name_buckets(r)) == 2


async def test_a_name_s_refusal_gives_the_address_its_token_back(r, clock, hasher):
    accounts = Accounts(
        r,
        clock=clock,
        hasher=hasher,
        account_policy=LoginPolicy(1, 300_000),
        address_policy=LoginPolicy(3, 30_000),
    )
    with pytest.raises(AccountError) as e:
        await accounts.login("ada", "wrong password", ADDRESS)
    assert e.value.code == "bad-login"
    for _ in range(5):  # the name refuses: the address keeps its tokens
        with pytest.raises(AccountError) as e:
            await accounts.login("ada", "wrong password", ADDRESS)
        assert e.value.code == "login-limited"
    for name in ("bob", "cyd"):
        with pytest.raises(AccountError) as e:
            await accounts.login(name, "wrong password", ADDRESS)
        assert e.value.code == "bad-login"


async def test_a_bucket_full_again_is_deleted(r, clock, accounts):
    await accounts.claim("p1", "Ada", PW)
    with pytest.raises(AccountError):
        await accounts.login("Ada", "wrong password", "10.0.0.1")
    assert await r.exists(keys.login_name("ada"))
    await accounts.login("Ada", PW, "10.0.0.2")  # a success refills the name's bucket: no key
    assert not await r.exists(keys.login_name("ada"))
    assert await r.exists(keys.login_address("10.0.0.2"))  # the address's token stays spent
