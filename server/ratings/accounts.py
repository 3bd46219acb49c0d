"""Account rules: names, passwords, login attempt limits (pure, no I/O).

Names
-----
An account name is 3 to 20 characters of ASCII letters, digits, ``_`` and
``-``, starting with a letter or a digit. ASCII only, so that no two names
look alike on screen in different scripts. Uniqueness is case-insensitive:
``name_key`` (the lower-cased name) is what must be unique, while the name
keeps the case it was claimed with for display. A few names that would
impersonate the server or the bots are reserved.

Passwords
---------
8 to 256 characters, anything but all whitespace, and not the account name
itself. They are hashed with argon2id (``argon2-cffi``, a memory-hard
function) and only the encoded hash (which carries its own salt and cost
parameters) is ever stored; a password is never logged or kept in clear.
Hashing costs tens of milliseconds of CPU by design, so callers in an event
loop run ``hash_password`` and ``verify_password`` in a thread.

Login attempts
--------------
Every login attempt takes a token from two buckets, one per account name
(also for names that do not exist, so that a refusal does not tell whether a
name exists) and one per client address. A bucket holds at most
``capacity`` tokens and refills one token every ``refill_ms``; an attempt
with an empty bucket is refused with the time until the next token. A failed
attempt keeps its token spent; a successful one gives the account bucket back
its full capacity (the owner is not locked out by an attacker once they got
in), while the address keeps its token spent: every login costs an argon2
check, and knowing one account's password (anyone can make an account) must
not buy an address an unlimited number of them. With the defaults an attacker
gets 5 guesses at once on one account and then 1 every 5 minutes (288 a day),
and one address gets 20 logins at once, failed or not, and then 1 every 30
seconds across all accounts. An address is counted by its group (``address_group``, as every
per-address limit): an IPv4 address itself, an IPv6 address its /64, which
one host is usually given whole and could rotate through.

Claims are limited per address group too (``CLAIM_POLICY``: 5 at once, then 1
every 10 minutes): every claim costs an argon2 hash and makes an account, and
new sessions per minute alone would let one address make hundreds of accounts
an hour (names taken, leaderboards filled). A claim refused for its own input
(``bad-name``, ``bad-password``, ``already-account``, ``name-taken`` found before
hashing) spends nothing.

A password change from a logged-in session checks the old password too, but
does not draw from the name's bucket: anyone may empty that one by failing
logins, and the owner must still be able to change a password they fear is
known. It takes a token from a bucket of its own per login session
(``PASSWORD_POLICY``: 5 at once, then 1 every 5 minutes), so a stolen session
cannot guess the old password faster than logins could; a change that
succeeds refills it. ``take``, ``refund`` and ``reset`` are pure functions over a
``Bucket`` state; ``accounts_store`` keeps that state in Redis and changes it with a
compare-and-set, so concurrent attempts cannot spend the same token twice.
"""

from __future__ import annotations

from dataclasses import dataclass

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from protocol.accounts import name_form_problem, password_problem

from ..core.hello import SERVER_NAMES

RESERVED_NAMES = SERVER_NAMES | {"bot", "guest"}


class AccountError(Exception):
    """A refused account request; ``code`` is a stable protocol error code."""

    def __init__(self, code: str, message: str, **extra: object) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.extra = extra


def name_key(name: str) -> str:
    """The case-insensitive uniqueness key of a (valid) name."""
    return name.lower()


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot be an account name, or None if it can."""
    problem = name_form_problem(name)
    if problem is not None:
        return problem
    if name_key(name) in RESERVED_NAMES or name_key(name).startswith("bot-"):
        return "this name is reserved"
    return None


def check_name(name: str) -> str:
    """``name`` if valid, else ``AccountError('bad-name')``."""
    problem = name_problem(name)
    if problem is not None:
        raise AccountError("bad-name", problem)
    return name


def check_password(password: str, name: str) -> None:
    """Raise ``AccountError('bad-password')`` if ``password`` is not acceptable."""
    problem = password_problem(password, name)
    if problem is not None:
        raise AccountError("bad-password", problem)


# --- password hashing -------------------------------------------------------------------

#: argon2id with argon2-cffi's defaults (RFC 9106 "low memory" profile:
#: 3 passes over 64 MiB, 4 lanes).
DEFAULT_HASHER = PasswordHasher()


def hash_password(password: str, hasher: PasswordHasher = DEFAULT_HASHER) -> str:
    """The encoded argon2id hash (``$argon2id$v=19$m=...``) of ``password``, freshly salted."""
    return hasher.hash(password)


def verify_password(encoded: str, password: str, hasher: PasswordHasher = DEFAULT_HASHER) -> bool:
    """Whether ``password`` matches ``encoded``; a malformed hash never matches."""
    try:
        return hasher.verify(encoded, password)
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


def needs_rehash(encoded: str, hasher: PasswordHasher = DEFAULT_HASHER) -> bool:
    """Whether ``encoded`` was made with other cost parameters than ``hasher``'s."""
    try:
        return hasher.check_needs_rehash(encoded)
    except InvalidHashError:
        return True


# --- login attempt limits ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LoginPolicy:
    """A token bucket: at most ``capacity`` attempts at once, one more every ``refill_ms``."""

    capacity: int
    refill_ms: int


ACCOUNT_POLICY = LoginPolicy(capacity=5, refill_ms=300_000)
ADDRESS_POLICY = LoginPolicy(capacity=20, refill_ms=30_000)
#: ``password`` changes (old-password checks) per login session of an account.
PASSWORD_POLICY = LoginPolicy(capacity=5, refill_ms=300_000)
#: ``claim``s (accounts made) per client address group.
CLAIM_POLICY = LoginPolicy(capacity=5, refill_ms=600_000)


@dataclass(frozen=True, slots=True)
class Bucket:
    """Tokens left at time ``at_ms`` (ms). A bucket never seen is full."""

    tokens: float
    at_ms: int

    def encode(self) -> str:
        return f"{self.tokens!r}:{self.at_ms}"

    @staticmethod
    def decode(text: str) -> Bucket:
        tokens, at = text.split(":")
        return Bucket(float(tokens), int(at))


@dataclass(frozen=True, slots=True)
class Decision:
    """``allowed``: the attempt may go on with ``bucket`` as the new state;
    otherwise it is refused for ``retry_after_ms``."""

    allowed: bool
    bucket: Bucket
    retry_after_ms: int


def refilled(bucket: Bucket | None, now_ms: int, policy: LoginPolicy) -> Bucket:
    """The bucket at ``now_ms``: refilled for the time passed, capped at the capacity."""
    if bucket is None:
        return Bucket(float(policy.capacity), now_ms)
    elapsed = max(0, now_ms - bucket.at_ms)
    return Bucket(
        min(float(policy.capacity), bucket.tokens + elapsed / policy.refill_ms), max(now_ms, bucket.at_ms)
    )


def take(bucket: Bucket | None, now_ms: int, policy: LoginPolicy) -> Decision:
    """Take one token for an attempt at ``now_ms``, or refuse it."""
    b = refilled(bucket, now_ms, policy)
    if b.tokens >= 1.0:
        return Decision(True, Bucket(b.tokens - 1.0, b.at_ms), 0)
    wait = (1.0 - b.tokens) * policy.refill_ms
    return Decision(False, b, max(1, int(wait + 0.999)))


def refund(bucket: Bucket | None, now_ms: int, policy: LoginPolicy) -> Bucket:
    """Give one token back (a successful attempt through an address)."""
    b = refilled(bucket, now_ms, policy)
    return Bucket(min(float(policy.capacity), b.tokens + 1.0), b.at_ms)


def reset(now_ms: int, policy: LoginPolicy) -> Bucket:
    """A full bucket (a successful login to the account)."""
    return Bucket(float(policy.capacity), now_ms)
