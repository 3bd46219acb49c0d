"""A claim that fails after its account was made (server/ratings/accounts_store.py `claim`,
server/handlers/accounts.py `claim`). The account existed, the client had no token, and the
same claim again got `already-account`: only a password login (which the client does not
offer for its own guest) got the player back. Now the steps after the account are tried
again within the request, a failure of the ones that only tidy up no longer turns the reply
into an error, and a claim that failed all the same is finished by the same claim again, on
the connection or on a new one resumed with the guest's token. Failures are injected into the
real server (Redis blips); everything else is real."""

from __future__ import annotations

from typing import Any

import pytest
from injected import fail_first
from wsclient import Raw, player

from server.core.gap_fill import ATTEMPTS

PW = "correct horse"
CHEAP_HASH = dict(password_hash_passes=1, password_hash_memory_kib=1024)


@pytest.fixture
async def app(make_server: Any) -> Any:
    return await make_server(**CHEAP_HASH)


async def logs_in(url: str, acct: dict[str, Any]) -> None:
    """The claim's token says hello as the account."""
    c = await Raw.open(url)
    try:
        w = await c.hello(token=acct["token"])
        assert w["player"] == acct["player"] and w["name"] == acct["name"]
        profile = await c.request("profile")
        assert profile["t"] == "profile" and profile["name"] == acct["name"], profile
    finally:
        await c.close()


async def guest_token_refused(url: str, token: str) -> None:
    c = await Raw.open(url)
    try:
        err = await c.request("hello", v=1, token=token)
        assert err["t"] == "error" and err["code"] == "bad-token", err
    finally:
        await c.close()


async def test_a_claim_whose_session_failed_once_answers_with_a_token(app: Any) -> None:
    calls = fail_first(app.accounts, "_new_session", why="redis blip after the account was made")
    guest = await player(app.ws_url, "ada")
    acct = await guest.request("claim", name="ada", password=PW)
    assert acct["t"] == "account" and acct["player"] == guest.player, acct
    assert calls["n"] == 2
    await logs_in(app.ws_url, acct)
    await guest.close()


async def test_a_claim_whose_tidying_up_failed_answers_with_a_token(app: Any) -> None:
    """The guest's records and token, after the account and its session: every try fails,
    and the reply still carries the token (the guest's token is ended at its next hello)."""
    guest = await player(app.ws_url, "ada")
    pid, guest_token = guest.player, guest.token
    touched = fail_first(app.service.store, "touch_player", ATTEMPTS, who=pid)
    ended = fail_first(app.service.store.sessions, "end_session", ATTEMPTS, who=guest_token)
    acct = await guest.request("claim", name="ada", password=PW)
    assert acct["t"] == "account" and acct["player"] == pid, acct
    assert touched["n"] == ended["n"] == ATTEMPTS
    await logs_in(app.ws_url, acct)
    await guest_token_refused(app.ws_url, guest_token)
    await guest.close()


@pytest.mark.parametrize("reconnect", [False, True], ids=["same-connection", "guest-token"])
async def test_a_claim_left_unfinished_is_finished_by_the_same_claim(app: Any, reconnect: bool) -> None:
    """Every try at the session fails: the claim gets `internal`, the account exists. The same
    claim again (on the connection, or on one resumed with the guest's token) gets the token;
    another password does not."""
    guest = await player(app.ws_url, "ada")
    pid, guest_token = guest.player, guest.token
    calls = fail_first(app.accounts, "_new_session", ATTEMPTS, who=pid)
    err = await guest.request("claim", name="ada", password=PW)
    assert err["t"] == "error" and err["code"] == "internal", err
    assert calls["n"] == ATTEMPTS
    assert await app.accounts.account(pid) is not None  # made: the half state
    if reconnect:
        await guest.close()
        guest = await Raw.open(app.ws_url)
        w = await guest.hello(token=guest_token)
        assert w["player"] == pid
    wrong = await guest.request("claim", name="ada", password="wrong horse")
    assert wrong["t"] == "error" and wrong["code"] == "already-account", wrong
    acct = await guest.request("claim", name="Ada", password=PW)
    assert acct["t"] == "account" and acct["player"] == pid and acct["name"] == "ada", acct
    await logs_in(app.ws_url, acct)
    again = await guest.request("claim", name="ada", password=PW)  # finished: a claim no more
    assert again["t"] == "error" and again["code"] == "already-account", again
    await guest_token_refused(app.ws_url, guest_token)
    await guest.close()
