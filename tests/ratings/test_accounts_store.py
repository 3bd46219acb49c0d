"""Accounts against a real redis-server: claim, login, sessions, login limits."""

from __future__ import annotations

import asyncio
import json
import threading

import pytest
import redis.asyncio as aioredis
from argon2 import PasswordHasher

from server.ratings import accounts_store, keys
from server.ratings.accounts import AccountError, LoginPolicy
from server.ratings.accounts_store import Accounts

PW = "correct horse battery"


# --- accounts -------------------------------------------------------------------------------


async def test_claim_login_logout(r, accounts):
    first = await accounts.claim("pguest1", "Ada", PW)
    assert first.player == "pguest1" and first.name == "Ada"
    assert (await accounts.account("pguest1")).name == "Ada"
    s1 = await accounts.session(first.token)
    assert s1 is not None and s1.player == "pguest1" and s1.name == "Ada"

    second = await accounts.login("aDA", PW, "10.0.0.1")  # names are case-insensitive
    s2 = await accounts.session(second.token)
    assert s2.player == "pguest1" and s2.session != s1.session

    await accounts.logout(first.token)
    assert await accounts.session(first.token) is None
    assert await accounts.session(second.token) is not None
    third = await accounts.login("ada", PW, "10.0.0.2")
    await accounts.logout_everywhere("pguest1")
    assert await accounts.session(second.token) is None and await accounts.session(third.token) is None
    assert await accounts.session("pguest1.forged") is None and await accounts.session("garbage") is None

    # the password is nowhere in Redis in clear
    for k in await r.keys("*"):
        dump = json.dumps(
            {
                "hash": [str(x) for x in (await r.hgetall(k)).items()]
                if await r.type(k) == b"hash"
                else str(await r.dump(k))
            }
        )
        assert PW not in dump


async def test_sessions_expire(r, clock, hasher):
    accounts = Accounts(r, clock=clock, hasher=hasher, session_ttl_ms=1000)
    login = await accounts.claim("pguest1", "Ada", PW)
    clock.ms += 1000
    assert await accounts.session(login.token) is None


async def test_names_are_unique_case_insensitively_and_one_account_per_player(accounts):
    await accounts.claim("p1", "Ada", PW)
    with pytest.raises(AccountError) as e:
        await accounts.claim("p2", "ADA", PW)
    assert e.value.code == "name-taken"
    with pytest.raises(AccountError) as e:
        await accounts.claim("p1", "Bob", PW)
    assert e.value.code == "already-account"
    await accounts.claim("p2", "Bob", PW)  # the name was released again
    for bad, code in [("a b", "bad-name"), ("Admin", "bad-name")]:
        with pytest.raises(AccountError) as e:
            await accounts.claim("p3", bad, PW)
        assert e.value.code == code
    with pytest.raises(AccountError) as e:
        await accounts.claim("p3", "Cat", "short")
    assert e.value.code == "bad-password"


async def test_concurrent_claims_of_one_name_give_it_once(r, accounts):
    results = await asyncio.gather(
        *(accounts.claim(f"p{i}", "Ada", PW) for i in range(8)), return_exceptions=True
    )
    winners = [x for x in results if not isinstance(x, BaseException)]
    assert len(winners) == 1
    assert all(isinstance(x, AccountError) and x.code == "name-taken" for x in results if x not in winners)
    assert await r.hget(keys.NAMES, "ada") == winners[0].player.encode()
    holders = [i for i in range(8) if await r.hget(keys.account(f"p{i}"), "key") == b"ada"]
    assert holders == [int(winners[0].player[1:])]


async def test_a_claim_that_died_half_way_does_not_hold_the_name(r, clock, accounts):
    # reserved by a claim that died before creating the account
    await r.hset(keys.NAMES, "ada", "pdead")
    await r.hset(keys.RESERVED, "ada", clock.ms)
    with pytest.raises(AccountError) as e:  # it may still be in flight
        await accounts.claim("p2", "Ada", PW)
    assert e.value.code == "name-taken"
    clock.ms += 60_000
    login = await accounts.claim("p2", "Ada", PW)
    assert login.player == "p2"
    assert await r.hget(keys.RESERVED, "ada") is None
    assert (await accounts.login("ada", PW, "10.0.0.1")).player == "p2"


async def test_a_claimed_guest_keeps_its_history(r, accounts):
    # what the server keeps under a guest's player id stays where it is
    await r.hset("{dailyp:pguest}:fours-up", "2025-03-14", '{"rank":1}')
    login = await accounts.claim("pguest", "Ada", PW)
    assert login.player == "pguest"
    assert await r.hget("{dailyp:pguest}:fours-up", "2025-03-14") == b'{"rank":1}'
    again = await accounts.login("Ada", PW, "10.0.0.1")
    assert again.player == "pguest"


async def test_change_password_revokes_the_other_sessions(accounts):
    here = await accounts.claim("p1", "Ada", PW)
    there = await accounts.login("Ada", PW, "10.0.0.1")
    with pytest.raises(AccountError) as e:
        await accounts.change_password(here.token, "wrong password", "new password 1")
    assert e.value.code == "bad-login"
    await accounts.change_password(here.token, PW, "new password 1")
    assert await accounts.session(here.token) is not None
    assert await accounts.session(there.token) is None
    with pytest.raises(AccountError):
        await accounts.login("Ada", PW, "10.0.0.1")
    assert (await accounts.login("Ada", "new password 1", "10.0.0.1")).player == "p1"


async def test_a_password_change_leaves_the_kept_session_s_hash_expiring(r, accounts, clock):
    """The change revokes the other sessions by deleting the hash and writing the kept one
    back: the hash must keep a TTL (the kept session's life), or a session never used again
    (no hello to renew it) would leave it in Redis for good."""
    here = await accounts.claim("p1", "Ada", PW)
    await accounts.login("Ada", PW, "10.0.0.1")
    clock.ms += 60_000  # the kept session's expiry is then a minute short of a whole lifetime
    await accounts.change_password(here.token, PW, "new password 1")
    ttl = await r.pttl(keys.sessions("p1"))
    assert accounts_store.SESSION_TTL_MS - 60_000 - 5_000 < ttl <= accounts_store.SESSION_TTL_MS - 60_000
    assert await accounts.session(here.token) is not None


async def _login_while(accounts: Accounts, monkeypatch, change) -> None:
    """A login whose password check is under way when `change` (a coroutine function) runs:
    the check passes, then the change lands, then the login goes on to make its session."""
    checking, checked = threading.Event(), threading.Event()
    real = accounts_store.verify_password

    def slow_check(encoded: str, password: str, ph: PasswordHasher) -> bool:
        ok = real(encoded, password, ph)
        if password == PW and not checking.is_set():  # the login's (not the change's own check)
            checking.set()
            checked.wait(10)
        return ok

    monkeypatch.setattr(accounts_store, "verify_password", slow_check)
    login = asyncio.create_task(accounts.login("Ada", PW, "10.0.0.9"))
    await asyncio.to_thread(checking.wait, 10)
    monkeypatch.setattr(accounts_store, "verify_password", real)
    await change()
    checked.set()
    with pytest.raises(AccountError) as refused:
        await login
    assert refused.value.code == "bad-login"


async def test_a_login_checked_before_a_password_change_makes_no_session(accounts, monkeypatch):
    """The owner changes the password while an attacker's login with the old one is being
    checked (a security audit: the session it made outlived the change, 3 of 3)."""
    here = await accounts.claim("p1", "Ada", PW)
    await _login_while(
        accounts, monkeypatch, lambda: accounts.change_password(here.token, PW, "new password 1")
    )
    assert await accounts.session(here.token) is not None
    assert len(await accounts.redis.hgetall(keys.sessions("p1"))) == 1  # the owner's only
    assert await accounts.redis.hgetall(keys.known_addresses("p1")) == {}  # nor a known address


async def test_a_login_checked_before_a_logout_everywhere_makes_no_session(accounts, monkeypatch):
    await accounts.claim("p1", "Ada", PW)
    await _login_while(accounts, monkeypatch, lambda: accounts.logout_everywhere("p1"))
    assert await accounts.redis.hgetall(keys.sessions("p1")) == {}
    assert (await accounts.login("Ada", PW, "10.0.0.1")).player == "p1"  # a login after it does


async def test_an_account_keeps_its_most_recently_used_sessions(r, clock, accounts):
    first = await accounts.claim("p1", "Ada", PW)
    logins = []
    for i in range(accounts_store.MAX_SESSIONS):
        clock.ms += 1000
        logins.append(await accounts.login("Ada", PW, f"10.0.1.{i}"))
    assert len(await r.hgetall(keys.sessions("p1"))) == accounts_store.MAX_SESSIONS
    assert await accounts.session(first.token) is None  # the least recently used made room
    clock.ms += 1000
    assert await accounts.resume(logins[0].token) is not None  # used: now the most recent
    await accounts.login("Ada", PW, "10.0.0.1")
    assert await accounts.session(logins[0].token) is not None
    assert await accounts.session(logins[1].token) is None


async def test_login_rehashes_with_new_cost_parameters(r, clock, accounts):
    await accounts.claim("p1", "Ada", PW)
    stronger = PasswordHasher(time_cost=2, memory_cost=2048, parallelism=1)
    await Accounts(r, clock=clock, hasher=stronger).login("Ada", PW, "10.0.0.1")
    assert "m=2048,t=2" in (await r.hget(keys.account("p1"), "pw")).decode()


# --- login limits ---------------------------------------------------------------------------


async def test_brute_force_on_one_account_is_limited(r, clock, hasher):
    accounts = Accounts(r, clock=clock, hasher=hasher, account_policy=LoginPolicy(5, 60_000))
    await accounts.claim("p1", "Ada", PW)
    codes = []
    for i in range(8):
        try:
            await accounts.login("Ada", f"guess {i:04d}", f"10.0.0.{i}")
            codes.append("ok")
        except AccountError as err:
            codes.append(err.code)
    assert codes == ["bad-login"] * 5 + ["login-limited"] * 3
    with pytest.raises(AccountError) as e:  # even the right password waits
        await accounts.login("Ada", PW, "10.0.1.1")
    assert e.value.code == "login-limited" and e.value.extra["retry_after_ms"] == 60_000
    clock.ms += 60_000
    assert (await accounts.login("Ada", PW, "10.0.1.1")).player == "p1"
    # a success refills the account's bucket
    for _ in range(5):
        with pytest.raises(AccountError) as e:
            await accounts.login("Ada", "wrong", "10.0.1.2")
        assert e.value.code == "bad-login"


async def test_concurrent_guesses_cannot_share_tokens(r, clock, hasher, clean_redis):
    accounts = Accounts(r, clock=clock, hasher=hasher, account_policy=LoginPolicy(5, 60_000))
    await accounts.claim("p1", "Ada", PW)
    clients = [aioredis.Redis.from_url(clean_redis) for _ in range(4)]
    try:
        others = [
            Accounts(c, clock=clock, hasher=hasher, account_policy=LoginPolicy(5, 60_000)) for c in clients
        ]
        results = await asyncio.gather(
            *(others[i % 4].login("Ada", "wrong", f"10.0.0.{i}") for i in range(20)), return_exceptions=True
        )
    finally:
        for c in clients:
            await c.aclose()
    codes = sorted(x.code for x in results if isinstance(x, AccountError))
    assert codes == ["bad-login"] * 5 + ["login-limited"] * 15


async def test_one_address_guessing_many_accounts_is_limited(r, clock, hasher):
    accounts = Accounts(r, clock=clock, hasher=hasher, address_policy=LoginPolicy(10, 30_000))
    codes = []
    for i in range(12):
        try:
            await accounts.login(f"user{i}", "wrong password", "10.9.9.9")
        except AccountError as err:
            codes.append(err.code)
    assert codes == ["bad-login"] * 10 + ["login-limited"] * 2
    # the refused attempts did not spend the accounts' own tokens, nor wrote their buckets
    assert await r.get(keys.login_name("user11")) is None
    with pytest.raises(AccountError) as e:
        await accounts.login("user11", "wrong password", "10.1.1.1")
    assert e.value.code == "bad-login"


async def test_failed_logins_on_the_name_do_not_stop_the_owners_password_change(r, clock, accounts):
    """Strangers who empty the name's login bucket (wrong logins, any case of the name) do not
    stop a logged-in owner from changing the password: that check has a bucket of its own."""
    here = await accounts.claim("p1", "Ada", PW)
    for i in range(5):
        with pytest.raises(AccountError) as e:
            await accounts.login("ADA", f"guess {i:04d}", f"10.0.0.{i}")
        assert e.value.code == "bad-login"
    with pytest.raises(AccountError) as e:  # login's own lockout is unchanged
        await accounts.login("Ada", PW, "10.0.1.1")
    assert e.value.code == "login-limited"
    await accounts.change_password(here.token, PW, "new password 1")
    assert await accounts.session(here.token) is not None
    assert await r.get(keys.login_name("ada")) is not None  # the name's bucket exists, still empty
    with pytest.raises(AccountError) as e:
        await accounts.login("Ada", "new password 1", "10.0.1.1")
    assert e.value.code == "login-limited"


async def test_password_changes_are_limited_per_session(r, clock, hasher):
    """A stolen session cannot guess the old password quickly: 5 tries at once, then one every
    5 minutes (PASSWORD_POLICY), counted per session, and not against the name's login bucket."""
    accounts = Accounts(r, clock=clock, hasher=hasher)
    assert accounts.password_policy == LoginPolicy(5, 300_000)
    here = await accounts.claim("p1", "Ada", PW)
    stolen = await accounts.login("Ada", PW, "10.0.0.1")
    codes = []
    for i in range(7):
        try:
            await accounts.change_password(stolen.token, f"guess {i:04d}", "new password 1")
            codes.append("ok")
        except AccountError as err:
            codes.append(err.code)
    assert codes == ["bad-login"] * 5 + ["login-limited"] * 2
    with pytest.raises(AccountError) as e:  # even the right old password waits, on that session
        await accounts.change_password(stolen.token, PW, "new password 1")
    assert e.value.code == "login-limited" and e.value.extra["retry_after_ms"] == 300_000
    # The owner's own session, and logins by name, are not held back by those guesses.
    assert (await accounts.login("Ada", PW, "10.0.0.2")).player == "p1"
    await accounts.change_password(here.token, PW, "new password 1")
    assert await accounts.session(stolen.token) is None  # revoked by the change
    # A success refills the session's bucket.
    for _ in range(2):
        with pytest.raises(AccountError) as e:
            await accounts.change_password(here.token, "wrong password", "new password 2")
        assert e.value.code == "bad-login"
    await accounts.change_password(here.token, "new password 1", "new password 2")
    for _ in range(5):
        with pytest.raises(AccountError) as e:
            await accounts.change_password(here.token, "wrong password", "new password 3")
        assert e.value.code == "bad-login"
    clock.ms += 300_000
    await accounts.change_password(here.token, "new password 2", "new password 3")


async def test_successful_logins_count_against_their_address(r, clock, hasher):
    """Every login costs an argon2 check: one address knowing an account's password (anyone can
    make one) must not buy an unlimited number of them (a security audit: 40 in a row)."""
    accounts = Accounts(r, clock=clock, hasher=hasher, address_policy=LoginPolicy(3, 30_000))
    await accounts.claim("p1", "Ada", PW)
    for _ in range(3):
        await accounts.login("Ada", PW, "10.0.0.1")
    with pytest.raises(AccountError) as limited:
        await accounts.login("Ada", PW, "10.0.0.1")
    assert limited.value.code == "login-limited"
    assert (await accounts.login("Ada", PW, "10.0.0.2")).player == "p1"  # the name is not
    clock.ms += 30_000
    assert (await accounts.login("Ada", PW, "10.0.0.1")).player == "p1"


async def test_strangers_failing_on_purpose_do_not_lock_the_owner_out_where_they_logged_in(r, clock, hasher):
    """Five wrong passwords from anywhere emptied the name's bucket and the owner's right one
    was refused (a security audit: one guess every 5 minutes kept an account locked). An
    address the account logged in from (or was claimed from) is not held back by it."""
    accounts = Accounts(r, clock=clock, hasher=hasher, account_policy=LoginPolicy(5, 300_000))
    await accounts.claim("p1", "Ada", PW, "10.0.0.1")  # at home
    await accounts.login("Ada", PW, "2001:db8:1:2::5")  # and on the phone

    async def lock_out() -> None:
        for _ in range(5):
            with pytest.raises(AccountError):
                await accounts.login("Ada", "a wrong guess", "10.0.0.66")

    async def refused(address: str) -> None:
        with pytest.raises(AccountError) as e:
            await accounts.login("Ada", PW, address)
        assert e.value.code == "login-limited"

    await lock_out()
    await refused("10.0.0.66")
    await refused("10.0.0.2")  # a new place waits, as a stranger does
    assert (await accounts.login("Ada", PW, "10.0.0.1")).player == "p1"
    await lock_out()
    assert (await accounts.login("Ada", PW, "2001:db8:1:2::77")).player == "p1"  # its /64
    # the addresses are kept as digests, and forgotten after a while without a login
    known = await r.hgetall(keys.known_addresses("p1"))
    assert len(known) == 2 and not any(b"10.0.0" in f or b"2001" in f for f in known)
    clock.ms += accounts_store.KNOWN_ADDRESS_MS
    await lock_out()
    await refused("10.0.0.1")


async def test_one_ipv6_64_is_one_address_for_login_limits(r, clock, hasher):
    """Every address of an IPv6 /64 (one host may hold it all) shares one login bucket, as in
    every per-address limit (``address_group``); another /64 has its own."""
    accounts = Accounts(r, clock=clock, hasher=hasher, address_policy=LoginPolicy(10, 30_000))
    codes = []
    for i in range(12):
        try:
            await accounts.login(f"user{i}", "wrong password", f"2001:db8:1:2:{i:x}::{i + 1:x}")
        except AccountError as err:
            codes.append(err.code)
    assert codes == ["bad-login"] * 10 + ["login-limited"] * 2
    with pytest.raises(AccountError) as e:
        await accounts.login("user12", "wrong password", "2001:db8:1:3::1")
    assert e.value.code == "bad-login"
    # An IPv4 address is itself, written either way.
    for i in range(10):
        with pytest.raises(AccountError) as e:
            await accounts.login(f"v4user{i}", "wrong password", "203.0.113.9")
        assert e.value.code == "bad-login"
    with pytest.raises(AccountError) as e:
        await accounts.login("v4user10", "wrong password", "::ffff:203.0.113.9")
    assert e.value.code == "login-limited"
    with pytest.raises(AccountError) as e:
        await accounts.login("v4user11", "wrong password", "203.0.113.10")
    assert e.value.code == "bad-login"


async def test_the_first_login_makes_the_stand_in_whatever_the_name(r, clock, hasher, monkeypatch):
    """An unknown name is checked against a stand-in hash (docs/ratings.md §6). The process's
    first login makes it, whether its name exists or not: made at the first unknown name,
    only that login would be slower, which would tell that the name does not exist."""
    accounts = Accounts(r, clock=clock, hasher=hasher)
    await accounts.claim("p1", "ada", PW)
    made: list[str] = []
    real = accounts_store.hash_password

    def counted(password: str, ph: PasswordHasher) -> str:
        made.append(password)
        return real(password, ph)

    monkeypatch.setattr(accounts_store, "hash_password", counted)
    assert accounts.stand_in is None
    await accounts.login("ada", PW, "10.0.0.1")  # a known name first: the stand-in is made
    assert len(made) == 1 and accounts.stand_in is not None
    with pytest.raises(AccountError) as refused:
        await accounts.login("nobody", PW, "10.0.0.1")  # an unknown one later: no new hash
    assert refused.value.code == "bad-login" and len(made) == 1


async def test_claims_are_limited_per_address(r, clock, hasher):
    """An address makes `capacity` accounts at once, then one per `refill_ms`; a claim refused for
    its own input spends nothing, and an exempt claim (`limited=False`) draws from no bucket."""
    accounts = Accounts(r, clock=clock, hasher=hasher, claim_policy=LoginPolicy(2, 60_000))
    with pytest.raises(AccountError) as e:
        await accounts.claim("p0", "x", PW, "10.0.0.1")
    assert e.value.code == "bad-name"
    await accounts.claim("p1", "Ada", PW, "10.0.0.1")
    with pytest.raises(AccountError) as e:
        await accounts.claim("p2", "ADA", PW, "10.0.0.1")
    assert e.value.code == "name-taken"
    await accounts.claim("p3", "Bob", PW, "10.0.0.2")  # another address: its own bucket
    await accounts.claim("p4", "Cyd", PW, "10.0.0.1")
    with pytest.raises(AccountError) as e:
        await accounts.claim("p5", "Dee", PW, "10.0.0.1")
    assert e.value.code == "claim-limited" and e.value.extra["retry_after_ms"] == 60_000
    assert await accounts.account("p5") is None and await r.hget(keys.NAMES, "dee") is None
    await accounts.claim("p6", "Eve", PW, "10.0.0.1", limited=False)
    clock.ms += 60_000
    await accounts.claim("p5", "Dee", PW, "10.0.0.1")


async def test_an_unfinished_claim_is_finished_by_the_same_claim_until_revoked(r, accounts, monkeypatch):
    """A claim whose steps after the account failed (every try: `retries.tried`): the same
    claim finishes it, with the same password only; `logout_everywhere` (or a password
    change) ends that chance, as it ends every way back in but the password."""
    real = accounts._new_session
    failing = [True]

    async def flaky(*args, **kw):
        if failing[0]:
            raise ConnectionError("redis blip after the account was made")
        return await real(*args, **kw)

    monkeypatch.setattr(accounts, "_new_session", flaky)
    for player in ("p1", "p2"):
        with pytest.raises(ConnectionError):
            await accounts.claim(player, f"Ada{player}", PW)
    failing[0] = False
    with pytest.raises(AccountError) as e:
        await accounts.claim("p1", "Adap1", "another password")
    assert e.value.code == "already-account"
    done = await accounts.claim("p1", "adaP1", PW)
    assert done.name == "Adap1" and (await accounts.session(done.token)).player == "p1"
    assert await r.hget(keys.account("p1"), "claiming") is None
    with pytest.raises(AccountError) as e:
        await accounts.claim("p1", "Adap1", PW)
    assert e.value.code == "already-account"
    await accounts.logout_everywhere("p2")  # the unfinished claim of p2 ends with it
    with pytest.raises(AccountError) as e:
        await accounts.claim("p2", "Adap2", PW)
    assert e.value.code == "already-account"
    assert (await accounts.login("adap2", PW, "10.0.0.1")).player == "p2"  # the password still works
