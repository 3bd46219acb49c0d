"""Argon2 work has a bound of its own (server/ratings/hashing.py ``Hashing``): a few
addresses spending their login allowance on unknown names used to queue hashes without limit
on asyncio's shared thread pool, and the owner's login waited tens of seconds behind them.
Past HASH_MOST requests in hand a login is refused at once (`login-limited` with a retry),
and the last HASH_OWNERS places are kept for an owner logging in from a known address."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from waiting import until

from server.ratings import accounts_store, hashing
from server.ratings.accounts import AccountError

PW = "correct horse battery"
OWNER_ADDRESS = "10.0.0.1"


async def test_hashing_beyond_the_bound_is_refused_at_once_and_owners_keep_a_place(
    r, clock, accounts, monkeypatch
):
    await accounts.claim("p1", "Ada", PW, OWNER_ADDRESS)  # the address is known to the account
    release = threading.Event()
    verify = accounts_store.verify_password

    def held_verify(*args: Any) -> bool:
        release.wait()  # every password check waits here until the test lets them go
        return verify(*args)

    monkeypatch.setattr(accounts_store, "verify_password", held_verify)
    strangers = hashing.HASH_MOST - hashing.HASH_OWNERS
    flood = [  # one login each from many addresses: no address's own limit is reached
        asyncio.ensure_future(accounts.login(f"nobody{i}", "wrong password", f"10.1.{i}.1"))
        for i in range(strangers + 10)
    ]
    try:
        await until(lambda: sum(t.done() for t in flood) == 10, what="the logins past the bound refused")
        refused = [t.exception() for t in flood if t.done()]
        for exc in refused:
            assert isinstance(exc, AccountError) and exc.code == "login-limited", exc
            assert exc.extra["retry_after_ms"] == hashing.HASH_BUSY_RETRY_MS
        # A stranger is refused at once, even for the owner's name; the owner, from a known
        # address, takes a place kept for owners.
        try:
            await accounts.login("Ada", "guess", "10.2.0.1")
            raise AssertionError("a login past the bound was not refused")
        except AccountError as exc:
            assert exc.code == "login-limited"
        owner = asyncio.ensure_future(accounts.login("Ada", PW, OWNER_ADDRESS))
        await until(
            lambda: owner.done() or accounts.hashing.busy > strangers, what="the owner's login in hand"
        )
        assert not owner.done()  # waiting for its check, not refused
    finally:
        release.set()
    assert (await owner).player == "p1"
    results = await asyncio.gather(*flood, return_exceptions=True)
    codes = sorted(x.code for x in results if isinstance(x, AccountError))
    assert codes == ["bad-login"] * strangers + ["login-limited"] * 10


async def test_hashing_runs_on_threads_of_its_own(accounts, monkeypatch):
    """Not on asyncio's default executor, which other work of the process shares."""
    names: list[str] = []
    verify = accounts_store.verify_password

    def noted_verify(*args: Any) -> bool:
        names.append(threading.current_thread().name)
        return verify(*args)

    monkeypatch.setattr(accounts_store, "verify_password", noted_verify)
    await accounts.claim("p1", "Ada", PW)
    await accounts.login("Ada", PW, OWNER_ADDRESS)
    assert names and all(n.startswith("argon2") for n in names)
