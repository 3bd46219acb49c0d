"""Accounts over Redis: claim, login, sessions, password change.

``Accounts`` takes a ``redis.asyncio`` client (single node or cluster; bytes
or decoded responses) and knows nothing of sockets: the request handlers
call it. Every time comes from ``clock`` (ms), injectable for tests;
password hashing runs in a thread (it costs tens of milliseconds of CPU by
design). The pure rules (names, passwords, login buckets) are in
``accounts``; the name index, which a claim reserves its name in, in ``names``.

A guest's player id becomes the account's id when claimed, so whatever is
kept under that id (races, daily history, ratings) stays with the account.
Session tokens are ``PLAYER.SECRET``; only sha256(SECRET), the session id,
is stored, with its expiry, in the account's slot. A session lives
``session_ttl_ms`` from its last use: each hello with its token renews it
(``resume``, in the same single round trip that checks it), so a player who
plays within every such span stays logged in. An account keeps at most
``MAX_SESSIONS`` sessions: a new one beyond them ends the least recently used.
Revoking is ``logout``, ``logout_everywhere`` and a password change; the last
two also move the account's revocation count (``epoch``) on, and a login makes
its session only if the password hash it verified and that count are still the
account's (a login in flight when the password changed makes none). Login
attempts take a token from a bucket per name and per address group first
(``accounts.take``); a password change takes one from a bucket of its session
instead (not the name's, which strangers can empty).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from argon2 import PasswordHasher

from ..retries import tried
from ..storage.sessions import address_group
from . import keys, scripts
from .accounts import (
    ACCOUNT_POLICY,
    ADDRESS_POLICY,
    CLAIM_POLICY,
    DEFAULT_HASHER,
    PASSWORD_POLICY,
    AccountError,
    Bucket,
    Decision,
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
from .common import DAY_MS, Clock, system_clock, text
from .hashing import Hashing
from .names import NameIndex

log = logging.getLogger("solrace.accounts")

SESSION_TTL_MS = 30 * DAY_MS  # from the session's last hello (sliding)
MAX_SESSIONS = 20  # per account (devices, browsers): a login beyond them ends the least recently used
KNOWN_ADDRESS_MS = 30 * DAY_MS  # an address an account logged in from skips the name's login bucket

# A session's check at hello that renews it (sliding expiry): one script, so one round
# trip as the check alone was, and atomic, so that a session revoked meanwhile (HDEL, DEL)
# is never written back. KEYS: sessions, account (one slot, ``{acct:P}``);
# ARGV: session id, now, lifetime (ms). Returns the account's name, or nil if the
# session is unknown, revoked or expired. The sessions hash itself lives as long as its
# longest session: none was renewed later than this one now.
RESUME = """
local exp = redis.call('HGET', KEYS[1], ARGV[1])
local name = redis.call('HGET', KEYS[2], 'name')
local now, ttl = tonumber(ARGV[2]), tonumber(ARGV[3])
if not exp or not name or tonumber(exp) <= now then
  return false
end
if now + ttl > tonumber(exp) then
  redis.call('HSET', KEYS[1], ARGV[1], string.format('%.0f', now + ttl))
  if redis.call('PTTL', KEYS[1]) < ttl then
    redis.call('PEXPIRE', KEYS[1], ARGV[3])
  end
end
return name
"""


def _address_id(address: str) -> str:
    """What an account keeps of an address it logged in from: a digest of its group (an IPv6
    address's /64), not the address itself."""
    return hashlib.sha256(address_group(address).encode()).hexdigest()[:32]


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


class Accounts:
    def __init__(
        self,
        redis: Any,
        *,
        clock: Clock = system_clock,
        hasher: PasswordHasher = DEFAULT_HASHER,
        account_policy: LoginPolicy = ACCOUNT_POLICY,
        address_policy: LoginPolicy = ADDRESS_POLICY,
        password_policy: LoginPolicy = PASSWORD_POLICY,
        claim_policy: LoginPolicy = CLAIM_POLICY,
        session_ttl_ms: int = SESSION_TTL_MS,
        hashing: Hashing | None = None,
    ) -> None:
        """
        ``hasher``: the argon2id parameters (tests use cheap ones).
        ``account_policy``, ``address_policy``: login buckets per name and per address group.
        ``password_policy``: the bucket of password changes per login session.
        ``claim_policy``: the bucket of claims per address group.
        ``hashing``: where argon2 runs, and its bound (a new ``Hashing()`` by default).
        """
        self.redis = redis
        self.clock = clock
        self.hasher = hasher
        self.account_policy = account_policy
        self.address_policy = address_policy
        self.password_policy = password_policy
        self.claim_policy = claim_policy
        self.session_ttl_ms = session_ttl_ms
        self.hashing = hashing or Hashing()
        self._cas = redis.register_script(scripts.CAS)
        self.names = NameIndex(redis, lambda: self.clock())  # the clock as it is set, even later
        self._create = redis.register_script(scripts.CREATE)
        self._undo_claim = redis.register_script(scripts.UNDO_CLAIM)
        self._set_password = redis.register_script(scripts.SET_PASSWORD)
        self._new_session_script = redis.register_script(scripts.NEW_SESSION)
        self._logout_everywhere = redis.register_script(scripts.LOGOUT_EVERYWHERE)
        self._resume = redis.register_script(RESUME)
        # A hash to verify against when the name is unknown, so that a login
        # for a missing account costs the same time as one for a real account.
        # Made at the process's first login, whatever its name: made at the first
        # *unknown* name, that login would be the slower one (docs/ratings.md §6);
        # made at start-up, every process (and every test server) would pay a
        # hash's time and memory (64 MiB by default) that most never need.
        self.stand_in: asyncio.Future[str] | None = None

    async def account(self, player: str) -> Account | None:
        rec = await self.redis.hgetall(keys.account(player))
        if not rec:
            return None
        d = {text(k): text(v) for k, v in rec.items()}
        return Account(player, d["name"], int(d["created"]))

    # --- claim ------------------------------------------------------------------------------

    async def claim(
        self, player: str, name: str, password: str, address: str | None = None, *, limited: bool = True
    ) -> Login:
        """Make the guest ``player`` an account named ``name``; returns a logged-in session.
        ``address``: the claiming client's, known from then on (as a login's), whose claims
        bucket the claim draws from (unless not ``limited``: an exempt address), once its
        cheap checks passed and before the hash.

        The account is made marked ``claiming`` until the claim's later steps are done
        (``_finish_claim``, tried a few times). Should they fail all the same, the client got
        no token, though the account exists: the same claim again (same name, same
        password, same player) finishes it and returns a token; the guest's token still
        resumes the player meanwhile (storage/sessions.py), so that it can be sent again
        from a new connection too.

        Errors: ``bad-name``, ``bad-password``, ``name-taken``, ``already-account``,
        ``claim-limited`` (``retry_after_ms``).
        """
        check_name(name)
        check_password(password, name)
        key = name_key(name)
        # Cheap refusals first: hashing costs real CPU time.
        made = await self.redis.hmget(keys.account(player), "key", "claiming", "pw", "epoch", "name")
        unfinished = made[0] is not None and text(made[0]) == key and made[1] is not None
        if made[0] is not None and not unfinished:
            raise AccountError("already-account", "this player already has an account")
        if not unfinished:
            owner = await self.redis.hget(keys.NAMES, key)
            if owner is not None and text(owner) != player and await self.names.holds(text(owner), key):
                raise AccountError("name-taken", "this name is taken")
        # A place for its hash before its token: a claim refused as the server is busy spends none.
        with self.hashing.slot("claim-limited"):
            return await self._claim(player, name, password, address, limited, key, made, unfinished)

    async def _claim(
        self,
        player: str,
        name: str,
        password: str,
        address: str | None,
        limited: bool,
        key: str,
        made: list[Any],
        unfinished: bool,
    ) -> Login:
        """``claim`` once its cheap checks passed, with a place for its hash."""
        if address is not None and limited:
            wait = await self._take(keys.claim_address(address), self.claim_policy, self.clock())
            if wait:
                raise AccountError(
                    "claim-limited", "too many accounts made from this address", retry_after_ms=wait
                )
        if unfinished:
            # This claim again: its account was made, and a step after it failed. With the
            # same password it is finished now (a wrong one is refused as any second claim).
            pw, epoch, name = text(made[2]), text(made[3] or b"0"), text(made[4])
            if not await self.hashing.run(verify_password, pw, password, self.hasher):
                raise AccountError("already-account", "this player already has an account")
        else:
            pw, epoch = await self.hashing.run(hash_password, password, self.hasher), "0"
            if not await self.names.reserve(key, player):
                raise AccountError("name-taken", "this name is taken")
            res = await self._create(keys=[keys.account(player)], args=[name, key, pw, self.clock()])
            if text(res[0]) == "exists":
                if text(res[1]) != key:
                    await self.names.release(key, player)
                raise AccountError("already-account", "this player already has an account")
        token = await tried(lambda: self._finish_claim(player, key, pw, epoch), unless=(AccountError,))
        if address is not None:
            try:  # what it costs if lost: this address is not known to the account's logins
                await self._remember(player, address, self.clock())
            except Exception:
                log.warning("account %s: its claim's address not remembered", player, exc_info=True)
        return Login(player, name, token)

    async def _finish_claim(self, player: str, key: str, pw: str, epoch: str) -> str:
        """The steps of a claim once its account exists (each may be made again): its name
        final, a session, and the account no longer marked ``claiming``. The session's token.

        A claim slower than a reservation's staleness may find its name taken over by another
        claim, whose account the index now names: this one then ends as the guest it was."""
        if not await self.names.confirm(key, player):
            await self._undo_claim(keys=[keys.account(player), keys.sessions(player)], args=[key, pw])
            raise AccountError("name-taken", "this name is taken")
        token = await self._new_session(player, pw, epoch)
        if token is None:  # the password changed, or every session was revoked, meanwhile
            raise AccountError("conflict", "the account changed while it was made")
        await self.redis.hdel(keys.account(player), "claiming")
        return token

    # --- login and sessions -----------------------------------------------------------------

    async def login(self, name: str, password: str, address: str) -> Login:
        """Log in from another device. Errors: ``login-limited`` (``retry_after_ms``), ``bad-login``."""
        key = name.lower()[:64]
        now = self.clock()
        player = await self.redis.hget(keys.NAMES, key)
        # An address the account logged in from before is not held back by the name's bucket:
        # strangers failing on purpose empty that one, and must not lock the owner out.
        known = player is not None and await self._known(text(player), address, now)
        # A place for its hashes before any token: a login refused as the server is busy spends
        # none. An owner's login from a known address may take the places kept for owners.
        with self.hashing.slot("login-limited", owner=known):
            return await self._login(key, password, address, now, player, known)

    async def _login(
        self, key: str, password: str, address: str, now: int, player: Any, known: bool
    ) -> Login:
        """``login`` with a place for its hashes."""
        name_bucket = keys.login_name(key)
        addr_bucket = keys.login_address(address)
        # The address first: an attempt it refuses writes nothing under the name tried (a key
        # per name, made up at will, would let one address fill Redis with refused attempts).
        wait = await self._take(addr_bucket, self.address_policy, now)
        if wait == 0 and not known:
            wait = await self._take(name_bucket, self.account_policy, now)
            if wait:
                await self._give_back(addr_bucket, self.address_policy, now)
        if wait:
            raise AccountError("login-limited", "too many login attempts", retry_after_ms=wait)
        dummy = await self._dummy()  # every login waits for it, known name or not
        rec = (
            {text(k): text(v) for k, v in (await self.redis.hgetall(keys.account(text(player)))).items()}
            if player
            else {}
        )
        if rec.get("key") != key:
            await self.hashing.run(verify_password, dummy, password, self.hasher)
            raise AccountError("bad-login", "unknown name or wrong password")
        if not await self.hashing.run(verify_password, rec["pw"], password, self.hasher):
            raise AccountError("bad-login", "unknown name or wrong password")
        pid = text(player)
        verified = rec["pw"]
        if needs_rehash(verified, self.hasher):
            new_pw = await self.hashing.run(hash_password, password, self.hasher)
            if await self._set_password(
                keys=[keys.account(pid), keys.sessions(pid)], args=[verified, new_pw, now, "", "0"]
            ):
                verified = new_pw
        token = await self._new_session(pid, verified, rec.get("epoch", "0"))
        if token is None:  # the password changed, or every session was revoked, since the read
            raise AccountError("bad-login", "unknown name or wrong password")
        # In: the name's bucket is full again, and the address is known. Its own token stays
        # spent: every login costs an argon2 check, and an account's own password must not
        # buy one address an unlimited number of them.
        await self._refill(name_bucket, self.account_policy, now)
        await self._remember(pid, address, now)
        return Login(pid, rec["name"], token)

    async def _known(self, player: str, address: str, now: int) -> bool:
        until = await self.redis.hget(keys.known_addresses(player), _address_id(address))
        return until is not None and int(text(until)) > now

    async def _remember(self, player: str, address: str, now: int) -> None:
        """The address logged the account in: known for KNOWN_ADDRESS_MS (renewed by each login
        from it); the ones known no longer are dropped."""
        kkey = keys.known_addresses(player)
        stale = [f for f, until in (await self.redis.hgetall(kkey)).items() if int(text(until)) <= now]
        pipe = self.redis.pipeline(transaction=False)
        if stale:
            pipe.hdel(kkey, *stale)
        pipe.hset(kkey, _address_id(address), now + KNOWN_ADDRESS_MS)
        pipe.pexpire(kkey, KNOWN_ADDRESS_MS)
        await pipe.execute()

    async def _dummy(self) -> str:
        if self.stand_in is None:
            self.stand_in = asyncio.ensure_future(
                self.hashing.run(hash_password, secrets.token_hex(16), self.hasher)
            )
        return await asyncio.shield(self.stand_in)

    async def _new_session(self, player: str, verified_pw: str, epoch: str) -> str | None:
        """A new session's token, or None when the account is no longer as the caller verified
        it (`verified_pw`, `epoch`: scripts.NEW_SESSION)."""
        secret = secrets.token_urlsafe(32)
        now = self.clock()
        made = await self._new_session_script(
            keys=[keys.account(player), keys.sessions(player)],
            args=[
                verified_pw,
                epoch,
                session_id(secret),
                now + self.session_ttl_ms,
                self.session_ttl_ms,
                now,
                MAX_SESSIONS,
            ],
        )
        return f"{player}.{secret}" if int(made) else None

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
        if expires is None or name is None or int(text(expires)) <= self.clock():
            return None
        return Session(player, text(name), sid)

    async def resume(self, token: str) -> Session | None:
        """``session``, for a hello: a valid session is also renewed, ``session_ttl_ms`` from now."""
        player, _, secret = token.partition(".")
        if not player or not secret:
            return None
        sid = session_id(secret)
        name = await self._resume(
            keys=[keys.sessions(player), keys.account(player)], args=[sid, self.clock(), self.session_ttl_ms]
        )
        return None if name is None else Session(player, text(name), sid)

    async def session_alive(self, player: str, session: str) -> bool:
        """Whether the session id ``session`` (not a token) of ``player`` is still valid."""
        if not session:
            return False
        expires = await self.redis.hget(keys.sessions(player), session)
        return expires is not None and int(text(expires)) > self.clock()

    async def logout(self, token: str) -> None:
        player, _, secret = token.partition(".")
        if player and secret:
            await self.redis.hdel(keys.sessions(player), session_id(secret))

    async def logout_everywhere(self, player: str) -> None:
        """Revoke every session of the account (and any login in flight: scripts.NEW_SESSION)."""
        await self._logout_everywhere(keys=[keys.account(player), keys.sessions(player)], args=[])

    async def change_password(self, token: str, old: str, new: str) -> None:
        """Change the password of the token's account and revoke its other sessions.

        Errors: ``not-logged-in``, ``bad-password`` (the new one), ``login-limited``
        (this session tried too often), ``bad-login`` (the old one is wrong), ``conflict``
        (changed meanwhile).

        The old password's check takes a token from this session's own bucket
        (``password_policy``), not from the name's login bucket: failed logins by anyone
        empty that one, and must not stop the owner from changing the password.
        """
        sess = await self.session(token)
        if sess is None:
            raise AccountError("not-logged-in", "log in first")
        check_password(new, sess.name)
        with self.hashing.slot("login-limited", owner=True):  # the owner's: the session holds
            await self._change_password(sess, old, new)

    async def _change_password(self, sess: Session, old: str, new: str) -> None:
        """``change_password`` with a place for its hashes."""
        now = self.clock()
        bucket = keys.password_change(sess.player, sess.session)
        wait = await self._take(bucket, self.password_policy, now)
        if wait:
            raise AccountError("login-limited", "too many attempts", retry_after_ms=wait)
        pw = text(await self.redis.hget(keys.account(sess.player), "pw") or b"")
        if not await self.hashing.run(verify_password, pw, old, self.hasher):
            raise AccountError("bad-login", "wrong password")
        new_pw = await self.hashing.run(hash_password, new, self.hasher)
        ok = await self._set_password(
            keys=[keys.account(sess.player), keys.sessions(sess.player)],
            args=[pw, new_pw, now, sess.session, "1"],
        )
        if not ok:
            raise AccountError("conflict", "the password was changed meanwhile")
        await self._refill(bucket, self.password_policy, now)

    # --- login buckets (compare-and-set over the pure policy) ------------------------------

    async def _change_bucket(
        self, key: str, policy: LoginPolicy, decide: Callable[[Bucket | None], Decision]
    ) -> Decision:
        """Apply ``decide`` to the stored bucket; write its new state if it allows,
        retrying from a fresh read whenever another attempt changed the bucket meanwhile.
        A bucket full again is deleted: no key is a full bucket, and keys must not pile up
        for names nobody logs in with."""
        ttl = policy.capacity * policy.refill_ms
        while True:
            raw = await self.redis.get(key)
            old = text(raw) if raw is not None else ""
            decision = decide(Bucket.decode(old) if old else None)
            if not decision.allowed:
                return decision
            new = "" if decision.bucket.tokens >= policy.capacity else decision.bucket.encode()
            if await self._cas(keys=[key], args=[old, new, ttl]):
                return decision

    async def _take(self, key: str, policy: LoginPolicy, now: int) -> int:
        """0 if a token was taken, else the ms until the next one."""
        decision = await self._change_bucket(key, policy, lambda b: take(b, now, policy))
        return decision.retry_after_ms

    async def _give_back(self, key: str, policy: LoginPolicy, now: int) -> None:
        await self._change_bucket(key, policy, lambda b: Decision(True, refund(b, now, policy), 0))

    async def _refill(self, key: str, policy: LoginPolicy, now: int) -> None:
        await self._change_bucket(key, policy, lambda b: Decision(True, reset(now, policy), 0))
