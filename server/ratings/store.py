"""Accounts and ratings over Redis: what the request handlers call.

``Ratings`` takes a ``redis.asyncio`` client (single node or cluster; bytes
or decoded responses) and knows nothing of sockets or races: the race server
calls ``record_race`` with a rated race's final ranking, and the handlers
call the account and read methods. Every time comes from ``clock`` (ms),
injectable for tests; password hashing runs in a thread (it costs tens of
milliseconds of CPU by design).

Exactly once
------------
``record_race`` reads the players' ratings and versions, computes the update
(pure: ``rating.rate_race`` with ``rating.fairness_weights``) and applies it
with one Lua script that first checks the race's marker and the versions.
The script writes every rating, the leaderboard, the histories, the pairing
times and the marker together or not at all. So a second call for the same
race, from another process or a retry after a crash at any point, finds the
marker and returns the stored outcome without changing anything, and an
update computed from ratings that changed meanwhile (the same player in
another race) is recomputed.

Accounts
--------
A guest's player id becomes the account's id when claimed, so whatever is
kept under that id (races, daily history) stays with the account. Session
tokens are ``PLAYER.SECRET``; only sha256(SECRET), the session id, is
stored, with its expiry, in the account's slot. Login attempts take a token
from a bucket per name and per address first (``accounts.take``).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from argon2 import PasswordHasher

from . import keys, scripts
from .accounts import (
    ACCOUNT_POLICY,
    ADDRESS_POLICY,
    DEFAULT_HASHER,
    AccountError,
    Bucket,
    LoginPolicy,
    check_name,
    check_password,
    hash_password,
    name_key,
    needs_rehash,
    refund,
    reset,
    take,
    verify_password,
)
from .rating import (
    NEW,
    PAIR_WINDOW_MS,
    Entrant,
    Rating,
    RatingError,
    check_entrants,
    fairness_weights,
    pair_id,
    rate_race,
    with_race,
)

Clock = Callable[[], int]
DAY_MS = 86_400_000
SESSION_TTL_MS = 30 * DAY_MS
MARKER_TTL_MS = 30 * DAY_MS
HISTORY_MAX = 500
APPLY_TRIES = 20
RESERVATION_STALE_MS = 60_000


def system_clock() -> int:
    return time.time_ns() // 1_000_000


def _s(v: Any) -> str:
    return v.decode() if isinstance(v, bytes) else str(v)


def _dumps(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def session_id(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class Account:
    player: str
    name: str
    created_ms: int


@dataclass(frozen=True, slots=True)
class Session:
    """A valid session: the account, and the session id (distinct per login)."""

    player: str
    name: str
    session: str


@dataclass(frozen=True, slots=True)
class Login:
    player: str
    name: str
    token: str


@dataclass(frozen=True, slots=True)
class PlayerChange:
    """One player's part of a rated race: rank, weight, rating before and after."""

    player: str
    name: str
    rank: int
    weight: float
    before: Rating
    after: Rating

    def to_json(self) -> dict[str, Any]:
        return {
            "player": self.player,
            "name": self.name,
            "rank": self.rank,
            "weight": self.weight,
            "before": _rating_json(self.before),
            "after": _rating_json(self.after),
        }

    @staticmethod
    def from_json(d: dict[str, Any]) -> PlayerChange:
        return PlayerChange(
            d["player"], d["name"], d["rank"], d["weight"], _rating_of(d["before"]), _rating_of(d["after"])
        )


@dataclass(frozen=True, slots=True)
class RaceOutcome:
    """A rated race's rating changes. ``applied``: this call applied them
    (False: an earlier call had, and these are its stored changes)."""

    game: str
    race: str
    at_ms: int
    players: tuple[PlayerChange, ...]
    applied: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "race": self.race,
            "at": self.at_ms,
            "players": [p.to_json() for p in self.players],
        }

    @staticmethod
    def from_json(d: dict[str, Any], applied: bool) -> RaceOutcome:
        return RaceOutcome(
            d["game"], d["race"], d["at"], tuple(PlayerChange.from_json(p) for p in d["players"]), applied
        )


def _rating_json(r: Rating) -> dict[str, Any]:
    return {
        "mu": r.mu,
        "sigma": r.sigma,
        "races": r.races,
        "rating": r.display,
        "provisional": r.provisional,
    }


def _rating_of(d: dict[str, Any]) -> Rating:
    return Rating(float(d["mu"]), float(d["sigma"]), int(d["races"]))


class Ratings:
    def __init__(
        self,
        redis: Any,
        *,
        clock: Clock = system_clock,
        hasher: PasswordHasher = DEFAULT_HASHER,
        account_policy: LoginPolicy = ACCOUNT_POLICY,
        address_policy: LoginPolicy = ADDRESS_POLICY,
        session_ttl_ms: int = SESSION_TTL_MS,
        pair_window_ms: int = PAIR_WINDOW_MS,
        history_max: int = HISTORY_MAX,
    ) -> None:
        """
        ``hasher``: the argon2id parameters (tests use cheap ones).
        ``account_policy``, ``address_policy``: login buckets per name and per
        address. ``pair_window_ms``: the fairness rule's window.
        ``history_max``: rated races kept per player and game.
        """
        self.redis = redis
        self.clock = clock
        self.hasher = hasher
        self.account_policy = account_policy
        self.address_policy = address_policy
        self.session_ttl_ms = session_ttl_ms
        self.pair_window_ms = pair_window_ms
        self.history_max = history_max
        self._apply = redis.register_script(scripts.APPLY)
        self._cas = redis.register_script(scripts.CAS)
        self._reserve = redis.register_script(scripts.RESERVE)
        self._release = redis.register_script(scripts.RELEASE)
        self._confirm = redis.register_script(scripts.CONFIRM)
        self._create = redis.register_script(scripts.CREATE)
        self._set_password = redis.register_script(scripts.SET_PASSWORD)
        self._board = redis.register_script(scripts.BOARD)
        # A hash to verify against when the name is unknown, so that a login
        # for a missing account costs the same time as one for a real account.
        self._dummy_hash: str | None = None

    # --- accounts -------------------------------------------------------------------------

    async def account(self, player: str) -> Account | None:
        rec = await self.redis.hgetall(keys.account(player))
        if not rec:
            return None
        d = {_s(k): _s(v) for k, v in rec.items()}
        return Account(player, d["name"], int(d["created"]))

    async def claim(self, player: str, name: str, password: str) -> Login:
        """Make the guest ``player`` an account named ``name``; returns a logged-in session.

        Errors: ``bad-name``, ``bad-password``, ``name-taken``, ``already-account``.
        """
        check_name(name)
        check_password(password, name)
        key = name_key(name)
        # Cheap refusals first: hashing costs real CPU time.
        if await self.redis.hexists(keys.account(player), "key"):
            raise AccountError("already-account", "this player already has an account")
        owner = await self.redis.hget(keys.NAMES, key)
        if owner is not None and _s(owner) != player and await self._holds_name(_s(owner), key):
            raise AccountError("name-taken", "this name is taken")
        pw = await asyncio.to_thread(hash_password, password, self.hasher)
        if not await self._reserve_name(key, player):
            raise AccountError("name-taken", "this name is taken")
        res = await self._create(keys=[keys.account(player)], args=[name, key, pw, self.clock()])
        if _s(res[0]) == "exists":
            if _s(res[1]) != key:
                await self._release(keys=[keys.NAMES, keys.RESERVED], args=[key, player])
            raise AccountError("already-account", "this player already has an account")
        await self._confirm(keys=[keys.NAMES, keys.RESERVED], args=[key, player])
        return Login(player, name, await self._new_session(player))

    async def _reserve_name(self, key: str, player: str) -> bool:
        """Reserve the name for ``player`` (in one slot: the index), before the
        account (in another slot) is created. A reservation whose account was
        never created (its claim died half-way) is taken over once it is
        ``RESERVATION_STALE_MS`` old; a younger one is a claim in flight."""
        now = self.clock()
        res = await self._reserve(keys=[keys.NAMES, keys.RESERVED], args=[key, player, "", now])
        if _s(res[0]) == "ok":
            return True
        owner, at = _s(res[1]), _s(res[2])
        if await self._holds_name(owner, key) or (at and now - int(at) < RESERVATION_STALE_MS):
            return False
        res = await self._reserve(keys=[keys.NAMES, keys.RESERVED], args=[key, player, owner, now])
        return _s(res[0]) == "ok"

    async def _holds_name(self, player: str, key: str) -> bool:
        return _s(await self.redis.hget(keys.account(player), "key") or b"") == key

    async def login(self, name: str, password: str, address: str) -> Login:
        """Log in from another device. Errors: ``login-limited`` (``retry_after_ms``), ``bad-login``."""
        key = name.lower()[:64]
        now = self.clock()
        name_bucket = keys.login_name(key)
        addr_bucket = keys.login_address(address)
        wait = await self._take(name_bucket, self.account_policy, now)
        if wait == 0:
            wait = await self._take(addr_bucket, self.address_policy, now)
            if wait:
                await self._give_back(name_bucket, self.account_policy, now)
        if wait:
            raise AccountError("login-limited", "too many login attempts", retry_after_ms=wait)
        player = await self.redis.hget(keys.NAMES, key)
        rec = (
            {_s(k): _s(v) for k, v in (await self.redis.hgetall(keys.account(_s(player)))).items()}
            if player
            else {}
        )
        if rec.get("key") != key:
            await asyncio.to_thread(verify_password, await self._dummy(), password, self.hasher)
            raise AccountError("bad-login", "unknown name or wrong password")
        if not await asyncio.to_thread(verify_password, rec["pw"], password, self.hasher):
            raise AccountError("bad-login", "unknown name or wrong password")
        pid = _s(player)
        await self._cas_loop(name_bucket, self.account_policy, lambda b: reset(now, self.account_policy))
        await self._give_back(addr_bucket, self.address_policy, now)
        if needs_rehash(rec["pw"], self.hasher):
            new_pw = await asyncio.to_thread(hash_password, password, self.hasher)
            await self._set_password(
                keys=[keys.account(pid), keys.sessions(pid)], args=[rec["pw"], new_pw, now, "", "0"]
            )
        return Login(pid, rec["name"], await self._new_session(pid))

    async def _dummy(self) -> str:
        if self._dummy_hash is None:
            self._dummy_hash = await asyncio.to_thread(hash_password, secrets.token_hex(16), self.hasher)
        return self._dummy_hash

    async def _new_session(self, player: str) -> str:
        secret = secrets.token_urlsafe(32)
        now = self.clock()
        skey = keys.sessions(player)
        old = await self.redis.hgetall(skey)
        expired = [k for k, v in old.items() if int(_s(v)) <= now]
        pipe = self.redis.pipeline(transaction=False)
        if expired:
            pipe.hdel(skey, *expired)
        pipe.hset(skey, session_id(secret), now + self.session_ttl_ms)
        pipe.pexpire(skey, self.session_ttl_ms)
        await pipe.execute()
        return f"{player}.{secret}"

    async def session(self, token: str) -> Session | None:
        """The session of a token, or None (unknown, revoked or expired)."""
        player, _, secret = token.partition(".")
        if not player or not secret:
            return None
        sid = session_id(secret)
        pipe = self.redis.pipeline(transaction=False)
        pipe.hget(keys.sessions(player), sid)
        pipe.hget(keys.account(player), "name")
        expires, name = await pipe.execute()
        if expires is None or name is None or int(_s(expires)) <= self.clock():
            return None
        return Session(player, _s(name), sid)

    async def logout(self, token: str) -> None:
        player, _, secret = token.partition(".")
        if player and secret:
            await self.redis.hdel(keys.sessions(player), session_id(secret))

    async def logout_everywhere(self, player: str) -> None:
        """Revoke every session of the account."""
        await self.redis.delete(keys.sessions(player))

    async def change_password(self, token: str, old: str, new: str) -> None:
        """Change the password of the token's account and revoke its other sessions.

        Errors: ``not-logged-in``, ``bad-password`` (the new one), ``login-limited``,
        ``bad-login`` (the old one is wrong), ``conflict`` (changed meanwhile).
        """
        sess = await self.session(token)
        if sess is None:
            raise AccountError("not-logged-in", "log in first")
        check_password(new, sess.name)
        now = self.clock()
        bucket = keys.login_name(name_key(sess.name))
        wait = await self._take(bucket, self.account_policy, now)
        if wait:
            raise AccountError("login-limited", "too many attempts", retry_after_ms=wait)
        pw = _s(await self.redis.hget(keys.account(sess.player), "pw") or b"")
        if not await asyncio.to_thread(verify_password, pw, old, self.hasher):
            raise AccountError("bad-login", "wrong password")
        new_pw = await asyncio.to_thread(hash_password, new, self.hasher)
        ok = await self._set_password(
            keys=[keys.account(sess.player), keys.sessions(sess.player)],
            args=[pw, new_pw, now, sess.session, "1"],
        )
        if not ok:
            raise AccountError("conflict", "the password was changed meanwhile")

    # --- login buckets (compare-and-set over the pure policy) ------------------------------

    async def _cas_loop(self, key: str, policy: LoginPolicy, step: Callable[[Bucket | None], Bucket]) -> None:
        ttl = policy.capacity * policy.refill_ms
        while True:
            raw = await self.redis.get(key)
            old = _s(raw) if raw is not None else ""
            new = step(Bucket.decode(old) if old else None)
            if await self._cas(keys=[key], args=[old, new.encode(), ttl]):
                return

    async def _take(self, key: str, policy: LoginPolicy, now: int) -> int:
        """0 if a token was taken, else the ms until the next one."""
        ttl = policy.capacity * policy.refill_ms
        while True:
            raw = await self.redis.get(key)
            old = _s(raw) if raw is not None else ""
            decision = take(Bucket.decode(old) if old else None, now, policy)
            if not decision.allowed:
                return decision.retry_after_ms
            if await self._cas(keys=[key], args=[old, decision.bucket.encode(), ttl]):
                return 0

    async def _give_back(self, key: str, policy: LoginPolicy, now: int) -> None:
        await self._cas_loop(key, policy, lambda b: refund(b, now, policy))

    # --- ratings ----------------------------------------------------------------------------

    async def rating(self, game: str, player: str) -> Rating:
        raw = await self.redis.hget(keys.players(game), player)
        return _rating_of(json.loads(raw)) if raw else NEW

    async def ratings(self, player: str, games: Sequence[str]) -> dict[str, Rating]:
        """The player's rating in each game (``NEW`` where never rated): a profile's figures."""
        pipe = self.redis.pipeline(transaction=False)
        for game in games:
            pipe.hget(keys.players(game), player)
        raws = await pipe.execute()
        return {game: _rating_of(json.loads(raw)) if raw else NEW for game, raw in zip(games, raws)}

    async def record_race(
        self, game: str, race: str, entrants: Sequence[Entrant], ended_ms: int | None = None
    ) -> RaceOutcome:
        """Apply a rated race's final ranking to its players' ratings, exactly once.

        ``entrants``: every player of the race with their login session and
        final rank. Errors: ``RatingError('not-rateable')`` (see
        ``rating.check_entrants``; also a player without an account).
        """
        check_entrants(entrants)
        at = self.clock() if ended_ms is None else ended_ms
        players = [e.player for e in entrants]
        pipe = self.redis.pipeline(transaction=False)
        for p in players:
            pipe.hget(keys.account(p), "name")
        names = [_s(n) if n is not None else None for n in await pipe.execute()]
        if any(n is None for n in names):
            raise RatingError("not-rateable", "rated races are only between accounts")
        name_of = dict(zip(players, [n or "" for n in names]))
        pairs = sorted({pair_id(a, b) for a in players for b in players if a < b})
        marker = keys.race(game, race)
        for _ in range(APPLY_TRIES):
            pipe = self.redis.pipeline(transaction=False)
            pipe.get(marker)
            pipe.hmget(keys.players(game), players)
            pipe.hmget(keys.versions(game), players)
            for pid in pairs:
                pipe.get(keys.pair(game, pid))
            done, records, versions, *pair_raw = await pipe.execute()
            if done is not None:
                return RaceOutcome.from_json(json.loads(done), applied=False)
            before = {p: (_rating_of(json.loads(r)) if r else NEW) for p, r in zip(players, records)}
            pairings = {pid: json.loads(raw) if raw else [] for pid, raw in zip(pairs, pair_raw)}
            weights = fairness_weights(players, pairings, at, self.pair_window_ms)
            after = rate_race(entrants, before, weights)
            outcome = RaceOutcome(
                game,
                race,
                at,
                tuple(
                    PlayerChange(
                        e.player,
                        name_of[e.player],
                        e.rank,
                        weights[e.player],
                        before[e.player],
                        after[e.player],
                    )
                    for e in entrants
                ),
                applied=True,
            )
            outcome_json = _dumps(outcome.to_json())
            args: list[Any] = [
                outcome_json,
                MARKER_TTL_MS,
                len(players),
                self.history_max,
                self.pair_window_ms,
            ]
            for e, v in zip(entrants, versions):
                r = after[e.player]
                record = {"mu": r.mu, "sigma": r.sigma, "races": r.races, "name": name_of[e.player], "at": at}
                entry = {
                    "race": race,
                    "at": at,
                    "rank": e.rank,
                    "players": len(entrants),
                    "weight": weights[e.player],
                    "before": _rating_json(before[e.player]),
                    "after": _rating_json(r),
                }
                score = repr(r.ordinal) if not r.provisional else ""
                args += [e.player, _s(v) if v is not None else "0", _dumps(record), score, _dumps(entry)]
            updated_pairs = with_race(pairings, players, at, self.pair_window_ms)
            for pid in pairs:
                args.append(_dumps(updated_pairs[pid]))
            res = await self._apply(
                keys=[marker, keys.players(game), keys.versions(game), keys.board(game)]
                + [keys.history(game, p) for p in players]
                + [keys.pair(game, pid) for pid in pairs],
                args=args,
            )
            status = _s(res[0])
            if status == "ok":
                return outcome
            if status == "dup":
                return RaceOutcome.from_json(json.loads(res[1]), applied=False)
        raise RatingError("busy", "the players' ratings kept changing; try again")

    async def history(self, game: str, player: str, limit: int = 50) -> list[dict[str, Any]]:
        """The player's latest rated races of the game, newest first (``entry`` JSON of record_race)."""
        raw = await self.redis.lrange(keys.history(game, player), 0, limit - 1)
        return [json.loads(x) for x in raw]

    async def leaderboard(
        self, game: str, top: int = 10, player: str | None = None, around: int = 2
    ) -> dict[str, Any]:
        """Top ``top`` and the ``around`` players either side of ``player``.

        Only established (non-provisional) ratings are on the board, ordered by
        ordinal; ranks are competition ranks (ties share one). ``me`` is None for
        a player not on the board.
        -> ``{"count", "top": [entry], "me": entry | None, "around": [entry]}``,
        entry = ``{"player", "name", "rank", "rating", "mu", "sigma", "races"}``.
        """
        count, top_rows, my_index, around_rows = await self._board(
            keys=[keys.board(game), keys.players(game)], args=[top, player or "", around]
        )

        def entry(row: Sequence[Any]) -> dict[str, Any]:
            rec = json.loads(row[1]) if row[1] else {"mu": NEW.mu, "sigma": NEW.sigma, "races": 0, "name": ""}
            r = _rating_of(rec)
            return {
                "player": _s(row[0]),
                "name": rec.get("name", ""),
                "rank": int(row[2]),
                "rating": r.display,
                "mu": r.mu,
                "sigma": r.sigma,
                "races": r.races,
            }

        around_entries = [entry(row) for row in around_rows]
        me = next((e for e in around_entries if e["player"] == player), None) if int(my_index) >= 0 else None
        return {
            "count": int(count),
            "top": [entry(row) for row in top_rows],
            "me": me,
            "around": around_entries,
        }
