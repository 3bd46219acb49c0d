"""Accounts and rated races over real sockets and a real Redis (docs/protocol.md §8)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import redis.asyncio as aioredis
from must import must_be
from waiting import DEADLINE, until
from wsclient import Raw, player

from server import storage as S
from server.ratings import NEW, Entrant, rate_race
from server.ratings import keys as rkeys
from server.ratings.rating import MODEL
from server.storage.keys import player_channel, session_key

GAME = "racing-aces"
CHEAP_HASH = dict(password_hash_passes=1, password_hash_memory_kib=1024)


@pytest.fixture
async def app(make_server):
    return await make_server(**CHEAP_HASH)


async def account(url: str, name: str, password: str = "correct horse") -> Raw:
    """A guest that claims an account, then a connection logged in with its token."""
    guest = await player(url, name)
    acct = await guest.request("claim", name=name, password=password)
    assert acct["t"] == "account", acct
    await guest.close()
    c = await Raw.open(url)
    w = await c.hello(token=acct["token"])
    assert w["player"] == acct["player"] and w["name"] == name
    return c


async def rated_race(host: Raw, other: Raw, *, rated: bool = True) -> str:
    """A 2-seat race: `host` makes one move more than `other`, both declare finished:
    `host` ranks 1st (same cards home, more moves). Returns the race id."""
    snap = await host.request("create", game=GAME, seats=2, rated=rated)
    assert snap["t"] == "race", snap
    assert snap.get("rated", False) is rated
    rid = snap["race"]
    assert (await other.request("join", race=rid))["t"] == "race"
    for c in (host, other):
        assert (await c.request("ready", race=rid))["t"] == "race"
    for c in (host, other):
        await c.wait(lambda f: f.get("t") == "start" and f["race"] == rid)
    ack = await host.request("move", race=rid, n=0, move="draw")
    assert ack["t"] == "ack", ack
    for c in (host, other):
        assert (await c.request("finish", race=rid))["t"] == "ok"
    for c in (host, other):
        end = await c.wait(lambda f: f.get("t") == "end" and f["race"] == rid)
    assert [r["player"] for r in end["ranking"]] == [host.player, other.player]
    assert [r["rank"] for r in end["ranking"]] == [1, 2]
    return rid


async def test_claim_keeps_the_player_and_retires_the_guest_token(app):
    url = app.ws_url
    guest = await player(url, "ada")
    pid, guest_token = guest.player, guest.token
    # Something kept under the guest's id: a seat in a lobby.
    snap = await guest.request("create", game=GAME, seats=2)
    rid = snap["race"]
    acct = await guest.request("claim", name="ada", password="correct horse")
    assert acct["t"] == "account" and acct["player"] == pid and acct["name"] == "ada"
    assert (await guest.request("claim", name="ada2", password="correct horse"))["code"] == "already-account"
    await guest.close()

    # The guest's token no longer resumes the account; the account's does, with its history.
    stale = await Raw.open(url)
    err = await stale.request("hello", v=1, token=guest_token, name="EVIL")
    assert err["t"] == "error" and err["code"] == "bad-token"
    await stale.close()
    # ...and a refused hello changes nothing: not the account's name, nor its records' life.
    r = aioredis.Redis.from_url(app.settings.redis)
    try:
        assert not await r.exists(session_key(guest_token))  # the claim ended it
        assert await r.hget(S.profile_key(pid), "name") == b"ada"
        assert await r.ttl(S.profile_key(pid)) > app.settings.fresh_session_ttl_s
    finally:
        await r.aclose()
    c = await Raw.open(url)
    w = await c.hello(token=acct["token"])
    assert w["player"] == pid and w["name"] == "ada" and rid in w["races"]

    # A name is taken once, whatever its case.
    other = await player(url, "bob")
    assert (await other.request("claim", name="ADA", password="another one"))["code"] == "name-taken"
    assert (await other.request("claim", name="a", password="another one"))["code"] == "bad-name"
    assert (await other.request("claim", name="bob", password="short"))["code"] == "bad-password"
    await asyncio.gather(c.close(), other.close())


async def test_a_guest_token_that_outlived_its_claim_is_ended_and_its_harm_undone(app):
    """A claim made before claims ended the guest's token left it in Redis: its hello
    renamed the account and cut its profile's life to a fresh guest's before the
    bad-token. It is now ended there, and the account's name and records' life restored."""
    url = app.ws_url
    guest = await player(url, "ada")
    pid, guest_token = guest.player, guest.token
    r = aioredis.Redis.from_url(app.settings.redis)
    try:
        kept = await r.get(session_key(guest_token))
        assert (await guest.request("claim", name="ada", password="correct horse"))["t"] == "account"
        await r.set(session_key(guest_token), must_be(kept, bytes), ex=3600)  # as an older claim left it
        stale = await Raw.open(url)
        err = await stale.request("hello", v=1, token=guest_token, name="EVIL")
        assert err["code"] == "bad-token"
        assert not await r.exists(session_key(guest_token))
        assert await r.hget(S.profile_key(pid), "name") == b"ada"
        assert await r.ttl(S.profile_key(pid)) > app.settings.fresh_session_ttl_s
    finally:
        await r.aclose()
    await asyncio.gather(guest.close(), stale.close())


async def test_login_from_a_second_connection_logout_and_password(app):
    url = app.ws_url
    ada = await account(url, "ada")
    pid = ada.player
    # Another device: a guest connection logs in, then says hello with the token.
    device = await player(url, "someone")
    login = await device.request("login", name="Ada", password="correct horse")
    assert login["t"] == "account" and login["player"] == pid
    await device.close()
    second = await Raw.open(url)
    assert (await second.hello(token=login["token"]))["player"] == pid

    # A password change ends the other sessions: the second device is closed (1008).
    changed = await ada.request("password", old="correct horse", new="battery staple")
    assert changed["t"] == "ok", changed
    await closed_revoked(second)
    assert (await ada.request("login", name="ada", password="correct horse"))["code"] == "bad-login"
    login = await ada.request("login", name="ada", password="battery staple")
    assert login["t"] == "account"

    # Log out everywhere: no token of the account says hello any more.
    assert (await ada.request("logout_all"))["t"] == "ok"
    for token in (login["token"], ada.token):
        c = await Raw.open(url)
        assert (await c.request("hello", v=1, token=token))["code"] == "bad-token"
        await c.close()
    assert (await ada.request("profile"))["name"] == "ada"  # the connection stays, logged out
    assert (await ada.request("quick", game=GAME, rated=True))["code"] == "not-logged-in"
    await asyncio.gather(ada.close(), second.close())


async def test_brute_force_login_is_refused(app):
    url = app.ws_url
    ada = await account(url, "ada")
    # Every client here is 127.0.0.1: as if ada had claimed elsewhere, her address is not known.
    await app.store.redis.delete(rkeys.known_addresses(ada.player))
    thief = await player(url, "thief")
    codes = [
        (await thief.request("login", name="ada", password=f"guess number {i}"))["code"] for i in range(5)
    ]
    assert codes == ["bad-login"] * 5
    limited = await thief.request("login", name="ada", password="correct horse")
    assert limited["code"] == "login-limited" and limited["retry_ms"] > 0
    # An unknown name is limited alike (nothing tells which names exist).
    for _ in range(5):
        await thief.request("login", name="nobody", password="whatever it is")
    assert (await thief.request("login", name="nobody", password="x" * 8))["code"] == "login-limited"
    await asyncio.gather(ada.close(), thief.close())


async def test_rated_race_updates_both_ratings_once(app):
    url = app.ws_url
    ada, bob = await account(url, "ada"), await account(url, "bob")
    rid = await rated_race(ada, bob)
    changes = [await c.wait(lambda f: f.get("t") == "rating" and f["race"] == rid) for c in (ada, bob)]
    assert changes[0] == changes[1]
    # The same update as the pure module's (openskill), from new ratings, weight 1.
    expected = rate_race([Entrant(ada.player, "a", 1), Entrant(bob.player, "b", 2)], {}, None)
    by_player = {p["player"]: p for p in changes[0]["players"]}
    for c, rank in ((ada, 1), (bob, 2)):
        p = by_player[c.player]
        assert p["rank"] == rank and p["weight"] == 1.0
        assert p["before"]["mu"] == NEW.mu and p["before"]["sigma"] == NEW.sigma
        assert p["after"]["mu"] == pytest.approx(expected[c.player].mu)
        assert p["after"]["sigma"] == pytest.approx(expected[c.player].sigma)
        assert p["after"]["races"] == 1 and p["after"]["provisional"] is True
    assert by_player[ada.player]["after"]["mu"] > MODEL.mu > by_player[bob.player]["after"]["mu"]

    # Both see the new rating and the race on their profiles.
    for c in (ada, bob):
        prof = await c.request("profile")
        assert prof["t"] == "profile" and prof["player"] == c.player
        rating = next(g for g in prof["ratings"] if g["game"] == GAME)
        assert rating["rating"]["mu"] == pytest.approx(expected[c.player].mu)
        assert [r["race"] for r in rating["history"]] == [rid]
        assert [r["race"] for r in prof["races"]] == [rid]

    # Once: ending it again (another process, a retry) changes nothing.
    _now, race = await app.store.load_race(rid)
    outcomes = await asyncio.gather(app.rated.on_end(race, {}), app.rated.rate(race), app.rated.rate(race))
    assert [o.applied for o in outcomes[1:]] == [False, False]
    again = await app.ratings.rating(GAME, ada.player)
    assert again.mu == pytest.approx(expected[ada.player].mu) and again.races == 1
    assert len(await app.ratings.history(GAME, ada.player)) == 1

    # Another's profile, and the (still provisional, so empty) leaderboard.
    prof = await ada.request("profile", player=bob.player)
    assert prof["name"] == "bob"
    board = await ada.request("rating_board", game=GAME)
    assert board["t"] == "rating_board" and board["count"] == 0 and board["me"] is None
    await asyncio.gather(ada.close(), bob.close())


async def test_a_rated_race_whose_ending_process_died_is_rated_later(app):
    url = app.ws_url
    ada, bob = await account(url, "ada"), await account(url, "bob")
    rated = app.rated
    # The process that ends the race dies between its end commit and the rating.
    app.service.end_hooks.remove(rated.on_end)
    rid = await rated_race(ada, bob)
    assert await app.ratings.rating(GAME, ada.player) == NEW
    now = app.service.now_ms()
    await rated.repair(GAME, now_ms=now)  # not due yet: the normal path has time to rate it
    assert await app.ratings.rating(GAME, ada.player) == NEW
    later = now + app.settings.time_limit_s * 1000 + 120_000
    await rated.repair(GAME, now_ms=later)  # any process, once due
    for c in (ada, bob):
        change = await c.wait(lambda f: f.get("t") == "rating" and f["race"] == rid)
        assert {p["player"] for p in change["players"]} == {ada.player, bob.player}
        assert (await app.ratings.rating(GAME, c.player)).races == 1
    assert await rated.pending.due(GAME, later) == []
    await asyncio.gather(ada.close(), bob.close())


async def test_casual_races_change_no_rating(app):
    url = app.ws_url
    ada, bob = await account(url, "ada"), await account(url, "bob")
    rid = await rated_race(ada, bob, rated=False)
    await ada.request("ping")  # the end hooks ran before the end was published
    for c in (ada, bob):
        prof = await c.request("profile")
        assert all(g["rating"]["races"] == 0 and not g["history"] for g in prof["ratings"])
        assert prof["races"] == []
        assert not [f for f in c.unread if f.get("t") == "rating"]
    assert (await app.ratings.rating(GAME, ada.player)) == NEW
    assert rid
    await asyncio.gather(ada.close(), bob.close())


async def test_rated_races_are_for_accounts_only(app):
    url = app.ws_url
    ada = await account(url, "ada")
    guest = await player(url, "guest")
    assert (await guest.request("create", game=GAME, rated=True))["code"] == "not-logged-in"
    assert (await guest.request("quick", game=GAME, rated=True))["code"] == "not-logged-in"
    refused = await ada.request("create", game=GAME, rated=True, time_limit_s=60)
    assert refused["code"] == "bad-message" and refused["field"] == "time_limit_s"
    assert (await ada.request("create", game=GAME, rated=True, seats=1))["field"] == "seats"
    snap = await ada.request("create", game=GAME, rated=True, seats=3)
    assert snap["rated"] is True and snap["time_limit_s"] == app.settings.time_limit_s
    rid = snap["race"]
    assert (await guest.request("join", race=rid))["code"] == "not-logged-in"
    listed = (await guest.request("races"))["races"]
    assert [r.get("rated") for r in listed if r["race"] == rid] == [True]
    assert (await ada.request("ready", race=rid))["t"] == "race"
    assert (await ada.request("start", race=rid))["code"] == "not-rateable"
    await asyncio.gather(ada.close(), guest.close())


async def test_rated_quick_match_seats_accounts_by_rating(app):
    url = app.ws_url
    ada, bob = await account(url, "ada"), await account(url, "bob")
    queued = await ada.request("quick", game=GAME, rated=True)
    assert queued["t"] == "queued" and queued["rated"] is True
    await bob.request("quick", game=GAME, rated=True)
    snaps: list[dict[str, Any]] = [
        await c.wait(lambda f: f.get("t") == "race" and f.get("rated") is True) for c in (ada, bob)
    ]
    assert snaps[0]["race"] == snaps[1]["race"]
    assert {p["name"] for p in snaps[0]["players"]} == {"ada", "bob"}
    _now, race = await app.store.load_race(snaps[0]["race"])
    assert race is not None and race.rated and all(p.session for p in race.players)
    assert len({p.session for p in race.players}) == 2
    await asyncio.gather(ada.close(), bob.close())


async def test_rated_quick_match_and_rating_across_two_processes(serve_process):
    """Two `solrace serve` processes on one Redis: the pool is shared, the race is rated once."""
    flags = ("--password-hash-passes", "1", "--password-hash-memory-kib", "1024", "--rate", "100000")
    url1, _ = serve_process(*flags)
    url2, _ = serve_process(*flags)
    ada, bob = await account(url1, "ada"), await account(url2, "bob")
    await ada.request("quick", game=GAME, rated=True)
    await bob.request("quick", game=GAME, rated=True)
    snaps = [await c.wait(lambda f: f.get("t") == "race" and f.get("rated") is True) for c in (ada, bob)]
    rid = snaps[0]["race"]
    assert snaps[1]["race"] == rid
    for c in (ada, bob):
        await c.wait(lambda f: f.get("t") == "start" and f["race"] == rid)
    assert (await ada.request("move", race=rid, n=0, move="draw"))["t"] == "ack"
    for c in (ada, bob):
        assert (await c.request("finish", race=rid))["t"] == "ok"
    changes = [await c.wait(lambda f: f.get("t") == "rating" and f["race"] == rid) for c in (ada, bob)]
    assert changes[0] == changes[1]
    ranks = {p["player"]: p["rank"] for p in changes[0]["players"]}
    assert ranks == {ada.player: 1, bob.player: 2}  # same cards home: the one who played first
    # Each profile, asked of either process, counts the race once.
    for c in (ada, bob):
        prof = await c.request("profile")
        rating = next(g for g in prof["ratings"] if g["game"] == GAME)
        assert rating["rating"]["races"] == 1 and [r["race"] for r in rating["history"]] == [rid]
    await asyncio.gather(ada.close(), bob.close())


async def test_rating_board_top_and_around_me(app):
    url = app.ws_url
    ada, bob = await account(url, "ada"), await account(url, "bob")
    guest = await player(url, "guest")
    # Twelve duels, two days apart (the fairness rule weighs each fully): Ada wins them all.
    day = 86_400_000
    start = app.service.now_ms() - 30 * day
    for i in range(12):
        await app.ratings.record_race(
            GAME,
            f"duel-{i}",
            [Entrant(ada.player, "sa", 1), Entrant(bob.player, "sb", 2)],
            ended_ms=start + 2 * i * day,
        )
    board = await bob.request("rating_board", game=GAME, top=1, around=1)
    assert board["t"] == "rating_board" and board["count"] == 2
    assert [(e["rank"], e["name"]) for e in board["top"]] == [(1, "ada")]
    assert board["me"]["name"] == "bob" and board["me"]["rank"] == 2 and board["me"]["races"] == 12
    assert [e["name"] for e in board["around"]] == ["ada", "bob"]
    assert board["top"][0]["rating"] > board["me"]["rating"]
    mine = await guest.request("rating_board", game=GAME)
    assert mine["me"] is None and [e["name"] for e in mine["top"]] == ["ada", "bob"]
    assert (await guest.request("rating_board", game="no-such-game"))["code"] == "unknown-game"
    prof = await guest.request("profile", player=ada.player)
    rating = next(g for g in prof["ratings"] if g["game"] == GAME)
    assert rating["rating"]["provisional"] is False and len(rating["history"]) == 12
    assert (await guest.request("profile"))["code"] == "no-such-account"
    await asyncio.gather(ada.close(), bob.close(), guest.close())


# --- revoked sessions (docs/protocol.md §9 `logout`, `logout_all`, `password`) ----------------


async def logged_in(url: str, via: Raw, name: str, password: str = "correct horse") -> Raw:
    """Another device: a token from `login` (asked on `via`), then a connection with it to `url`."""
    login = await via.request("login", name=name, password=password)
    assert login["t"] == "account", login
    c = await Raw.open(url)
    await c.hello(token=login["token"])
    return c


async def closed_revoked(c: Raw) -> None:
    """`c` is closed by the server with 1008: its session was revoked."""
    await until(lambda: c.reader.done(), what="the revoked connection closed")
    assert c.closed == 1008 and "revoked" in (c.ws.close_reason or "")


async def bad_token(url: str, token: str | None) -> None:
    c = await Raw.open(url)
    assert (await c.request("hello", v=1, token=token))["code"] == "bad-token"
    await c.close()


async def test_password_and_logout_all_close_the_other_connections_on_every_process(make_server):
    """A connection opened with a token does not outlive the token: once `password` or
    `logout_all` revoked it, the connection is closed (1008), on this process and on the
    others, so a stolen token stops playing as the account at once. The asking connection
    stays; so do connections whose token still holds (the asker's own, for `password`)."""
    app1, app2 = await make_server(**CHEAP_HASH), await make_server(**CHEAP_HASH)
    url1, url2 = app1.ws_url, app2.ws_url
    ada = await account(url1, "ada")
    thief = await logged_in(url2, ada, "ada")  # a stolen token, used on the other process
    here = await logged_in(url1, ada, "ada")  # and another on this one
    twin = await Raw.open(url2)  # the asker's own token, on the other process
    await twin.hello(token=ada.token)
    bob = await account(url1, "bob")
    snap = await ada.request("create", game=GAME, seats=2, rated=True)
    rid = snap["race"]
    assert (await bob.request("join", race=rid))["t"] == "race"

    assert (await ada.request("password", old="correct horse", new="battery staple"))["t"] == "ok"
    for c in (thief, here):
        await closed_revoked(c)
        await bad_token(url2, c.token)
    # The asker stays, logged in; its own token holds, and so do its connections.
    assert (await ada.request("ready", race=rid))["t"] == "race"
    assert (await twin.request("quick", game=GAME, rated=True))["t"] == "queued"
    assert (await twin.request("unqueue", game=GAME))["t"] == "ok"

    # Log out everywhere, asked on the other process: every other connection closes.
    fresh = await logged_in(url1, bob, "ada", "battery staple")
    assert (await twin.request("logout_all"))["t"] == "ok"
    for c in (ada, fresh):
        await closed_revoked(c)
        await bad_token(url1, c.token)
    assert (await twin.request("ping"))["t"] == "pong"  # the asker stays, logged out
    assert (await twin.request("quick", game=GAME, rated=True))["code"] == "not-logged-in"
    # A login made since is not touched by the past revocation.
    again = await logged_in(url2, bob, "ada", "battery staple")
    assert (await again.request("quick", game=GAME, rated=True))["t"] == "queued"
    await asyncio.gather(*(c.close() for c in (twin, bob, again)))


async def test_logout_closes_the_other_connections_of_its_token_on_every_process(make_server):
    """`logout` ended the token, but a connection opened with it before went on playing as the
    account (a security audit): it is closed (1008) too, here and on the other process; another
    device's token holds, and its connection stays."""
    app1, app2 = await make_server(**CHEAP_HASH), await make_server(**CHEAP_HASH)
    ada = await account(app1.ws_url, "ada")
    same_here, same_there = await Raw.open(app1.ws_url), await Raw.open(app2.ws_url)
    for c in (same_here, same_there):
        await c.hello(token=ada.token)
    other_device = await logged_in(app2.ws_url, ada, "ada")
    assert (await ada.request("logout"))["t"] == "ok"
    for c in (same_here, same_there):
        await closed_revoked(c)
    assert (await ada.request("ping"))["t"] == "pong"  # the asker stays, logged out
    assert (await other_device.request("quick", game=GAME, rated=True))["t"] == "queued"
    await asyncio.gather(*(c.close() for c in (ada, other_device)))


@pytest.mark.parametrize("asked_here", [False, True], ids=["asked-elsewhere", "asked-here"])
async def test_a_hello_racing_a_revocation_is_not_left_open(make_server, monkeypatch, asked_here):
    """hello checks its token, then makes the connection one of its player's; a revocation
    whose close of the player's connections ran in between did not see it. It must not stay
    open with the revoked token, whether the revocation was asked on its process or another."""
    app1, app2 = await make_server(**CHEAP_HASH), await make_server(**CHEAP_HASH)
    ada = await account(app1.ws_url, "ada")
    asker = await logged_in(app2.ws_url, ada, "ada") if asked_here else ada
    witness = await logged_in(app2.ws_url, ada, "ada")  # its close says the close ran on app2
    login = await ada.request("login", name="ada", password="correct horse")
    checked, go = asyncio.Event(), asyncio.Event()
    touch = app2.store.touch_player

    async def paused(pid: str, name: str) -> None:  # right after hello's check of the token
        checked.set()
        await go.wait()
        await touch(pid, name)

    monkeypatch.setattr(app2.store, "touch_player", paused)
    late = await Raw.open(app2.ws_url)
    await late.send({"t": "hello", "rid": 1, "v": 1, "token": login["token"]})
    await asyncio.wait_for(checked.wait(), DEADLINE)
    assert (await asker.request("logout_all"))["t"] == "ok"
    await closed_revoked(witness)
    go.set()
    await until(lambda: late.unread or late.reader.done(), what="the late hello answered")
    assert not [f for f in late.unread if f.get("t") == "welcome"], late.unread
    await closed_revoked(late)
    await bad_token(app2.ws_url, login["token"])
    await asyncio.gather(*(c.close() for c in (ada, asker)))


async def test_a_revocation_closes_a_connection_whose_process_is_not_yet_subscribed(make_server, monkeypatch):
    """The first connection of a player on a process subscribes to the player's channel, but
    Redis may take that SUBSCRIBE after a revocation's notice (a slow process, a busy Redis):
    the connection is closed all the same."""
    app1, app2 = await make_server(**CHEAP_HASH), await make_server(**CHEAP_HASH)
    ada = await account(app1.ws_url, "ada")
    bus = app2.service.bus
    subscribe = bus.subscribe
    held: list[str] = []

    def late_subscribe(*channels: str) -> None:
        for ch in channels:
            if ch == player_channel(ada.player):
                held.append(ch)  # reaches Redis only after the revocation
            else:
                subscribe(ch)

    monkeypatch.setattr(bus, "subscribe", late_subscribe)
    other = await logged_in(app2.ws_url, ada, "ada")
    assert held
    assert (await ada.request("password", old="correct horse", new="battery staple"))["t"] == "ok"
    await closed_revoked(other)
    subscribe(*held)
    await ada.close()


async def test_logout_on_a_token_revoked_elsewhere_is_not_logged_in(make_server):
    app1, app2 = await make_server(**CHEAP_HASH), await make_server(**CHEAP_HASH)
    ada = await account(app1.ws_url, "ada")
    same = await Raw.open(app2.ws_url)  # the same token on another process
    await same.hello(token=ada.token)
    assert (await ada.request("logout"))["t"] == "ok"
    await closed_revoked(same)  # it cannot log out again: closed with the token
    assert (await ada.request("logout"))["code"] == "not-logged-in"
    await ada.close()


async def test_revoked_sessions_leave_the_rated_pool_and_are_never_seated(make_server):
    app1, app2 = await make_server(**CHEAP_HASH), await make_server(**CHEAP_HASH)
    url1, url2 = app1.ws_url, app2.ws_url
    pool = app1.rated.pool

    async def queued(c: Raw, alone: bool = True) -> None:
        assert (await c.request("quick", game=GAME, rated=True))["t"] == "queued"
        if alone:  # nobody to be seated with: still waiting
            assert await pool.has(GAME, c.player)

    # logout while queued
    eve = await account(url1, "eve")
    await queued(eve)
    assert (await eve.request("logout"))["t"] == "ok"
    assert not await pool.has(GAME, eve.player)

    # logout_all and password from another device (another process) while queued
    asks: list[tuple[str, tuple[str, dict[str, Any]]]] = [
        ("fay", ("logout_all", {})),
        ("gus", ("password", {"old": "correct horse", "new": "x" * 12})),
    ]
    for name, ask in asks:
        c = await account(url1, name)
        await queued(c)
        other = await logged_in(url2, c, name)
        assert (await other.request(ask[0], **ask[1]))["t"] == "ok"
        assert not await pool.has(GAME, c.player)
        await closed_revoked(c)
        await other.close()

    # The asker's own entry stays: its session holds. A revoked connection closing (on the
    # other process) does not take it out of the pool either.
    disconnected: list[str | None] = []

    async def seen(s: Any) -> None:  # after the rated pool's own hook
        disconnected.append(s.pid)

    app2.service.disconnect_hooks.append(seen)
    hal = await account(url1, "hal")
    stolen = await logged_in(url2, hal, "hal")
    await queued(stolen)
    await queued(hal)  # the entry is hal's session's now
    assert (await hal.request("password", old="correct horse", new="battery staple"))["t"] == "ok"
    await closed_revoked(stolen)
    await until(lambda: hal.player in disconnected, what="the stolen connection's clean-up")
    assert await pool.has(GAME, hal.player)
    ian = await account(url1, "ian")
    await queued(ian, alone=False)
    snaps = [await c.wait(lambda f: f.get("t") == "race" and f.get("rated") is True) for c in (hal, ian)]
    assert snaps[0]["race"] == snaps[1]["race"]

    await asyncio.gather(*(c.close() for c in (eve, hal, ian)))


async def test_a_group_with_a_revoked_session_is_not_seated(make_server):
    """A session revoked without a word to the pool (its process died at that moment): the
    group formed with it is not seated; the other goes back and is seated with the next."""
    app1, app2 = await make_server(**CHEAP_HASH), await make_server(**CHEAP_HASH)
    url1, url2 = app1.ws_url, app2.ws_url
    pool = app1.rated.pool

    async def queued(c: Raw, alone: bool = True) -> None:
        assert (await c.request("quick", game=GAME, rated=True))["t"] == "queued"
        if alone:
            assert await pool.has(GAME, c.player)

    jo, kim, lee = await account(url1, "joe"), await account(url1, "kim"), await account(url2, "lee")
    await queued(jo)
    await app1.accounts.logout(jo.token)
    await queued(kim, alone=False)  # seated with jo? no: put back

    async def jo_dropped_kim_back() -> bool:
        return not await pool.has(GAME, jo.player) and await pool.has(GAME, kim.player)

    await until(jo_dropped_kim_back, what="jo dropped, kim back in the pool")
    await queued(lee, alone=False)
    snaps = [await c.wait(lambda f: f.get("t") == "race" and f.get("rated") is True) for c in (kim, lee)]
    assert snaps[0]["race"] == snaps[1]["race"]
    assert {p["name"] for p in snaps[0]["players"]} == {"kim", "lee"}
    assert not [f for f in jo.unread if f.get("t") == "race"]
    await asyncio.gather(*(c.close() for c in (jo, kim, lee)))


async def test_a_private_rated_race_is_private_before_anything_else(app):
    ada = await account(app.ws_url, "ada")
    snap = await ada.request("create", game=GAME, seats=2, rated=True, private=True)
    rid, invite = snap["race"], snap["invite"]
    guest = await player(app.ws_url, "guest")
    assert (await guest.request("join", race=rid))["code"] == "private-race"
    assert (await guest.request("join", race=rid, invite="wrong"))["code"] == "private-race"
    assert (await guest.request("join", race=rid, invite=invite))["code"] == "not-logged-in"
    await asyncio.gather(ada.close(), guest.close())


async def test_no_bot_in_a_rated_race(app):
    ada = await account(app.ws_url, "ada")
    rid = (await ada.request("create", game=GAME, seats=2, rated=True))["race"]
    refused = await ada.request("bot", race=rid)
    assert refused["code"] == "bad-message" and refused["field"] == "race"
    other = await account(app.ws_url, "bob")
    assert (await other.request("bot", race=rid))["code"] == "not-in-race"
    casual = (await ada.request("create", game=GAME, seats=2))["race"]
    assert (await ada.request("bot", race=casual))["code"] == "no-bots"  # no worker in these tests
    await asyncio.gather(ada.close(), other.close())
