"""The decisions of `hello` (docs/protocol.md §2): who the connection is, and what it rejoins.

A hello with a token resumes that session (a guest's or an account's); one
without creates a session, counted against the client address's limit of
new sessions unless the address is exempt (local tools). After it, the
connection takes part in every race where the player holds a seat and which
is not finished.

A guest's display name is free-form, but a hello that *takes* one (a new session
with `name`, or a guest's rename) may not take a name that would pass for someone
it is not: an account's name, a name that speaks for the server, or a bot's name
(compared as `name_keys` says). The reserved ones are decided here; the accounts'
names are looked up by the caller, only for the forms `account_name_keys` gives; a name
in another alphabet is compared by its Latin look-alike too (Cyrillic "аdа" passes for "ada").
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import TypeGuard

from protocol import messages as m
from protocol.messages import ErrorCode, RaceStatus

from .bots import BOT_NAMES
from .lookalikes import latin_lookalike
from .record import Race, RaceError

#: Names that speak for the server or its staff: neither an account (ratings/accounts.py
#: reserves them too) nor a guest takes them.
SERVER_NAMES = frozenset({"admin", "administrator", "moderator", "root", "server", "solrace", "system"})
#: Names a guest may not take as a display name: those, and the names the server's bots play under.
RESERVED_DISPLAY_NAMES = SERVER_NAMES | {n.casefold() for n in BOT_NAMES.values()}
#: What a race appends to a name someone in it already has ("ada 2": core/lobby.py `seat_name`).
_SEAT_SUFFIX = re.compile(r" [0-9]+$")
#: The shape of an account name's key (protocol/accounts.py: 3 to 20 ASCII characters, lower-cased).
_ACCOUNT_KEY = re.compile(r"[a-z0-9][a-z0-9_-]{2,19}")


@dataclass(frozen=True, slots=True)
class HelloPlan:
    resume: str | None  # the session token to resume; None: a new session
    count_new: bool  # a new session counted against the address's limit


def plan_hello(v: int, name: str | None, token: str | None, *, max_name: int, exempt: bool) -> HelloPlan:
    """Resume or create, and whether the address's limit counts it (not if the address is
    `exempt`: --limit-exempt); refuses a protocol version the server does not speak and an
    over-long name."""
    if v not in m.SUPPORTED_VERSIONS:
        raise RaceError(
            ErrorCode.BAD_VERSION,
            f"protocol version {v} is not supported",
            supported=list(m.SUPPORTED_VERSIONS),
        )
    if name is not None and len(name) > max_name:
        raise RaceError(ErrorCode.BAD_MESSAGE, f"`name`: at most {max_name} characters", field="name")
    if token is not None:
        return HelloPlan(resume=token, count_new=False)
    return HelloPlan(resume=None, count_new=not exempt)


def _key(name: str) -> str:
    return " ".join(name.casefold().split())


def name_keys(name: str) -> frozenset[str]:
    """The forms a display name is compared under: compatibility-normalized (NFKC: a
    full-width "ａｄｍｉｎ" is "admin"), case-folded, its spaces collapsed; the same read as
    Latin (core/lookalikes.py: a Cyrillic "аdmin" is "admin"); and each without a race's " 2"
    suffix, so that "ada 2" passes for nobody's second seat.

    The look-alikes are read both before and after case folding: a capital can look like
    another letter than its small form (Greek "Ν" is drawn as N, "ν" as v; Cyrillic "І" is
    given the prototype l, its small "і" the prototype i)."""
    shown = unicodedata.normalize("NFKC", name)
    keys = {_key(shown), _key(latin_lookalike(shown)), _key(latin_lookalike(shown.casefold()))}
    return frozenset(form for key in keys for form in (key, _SEAT_SUFFIX.sub("", key)))


def reserved_name(name: str) -> bool:
    """Whether a guest may not take `name`: it speaks for the server or names a bot."""
    return not name_keys(name).isdisjoint(RESERVED_DISPLAY_NAMES)


def account_name_keys(name: str) -> list[str]:
    """The account name keys `name` could pass for, to look up in the accounts' index: none
    for a name no account can have (no Redis read then)."""
    return sorted(k for k in name_keys(name) if _ACCOUNT_KEY.fullmatch(k))


def name_taken() -> RaceError:
    return RaceError(
        ErrorCode.NAME_TAKEN,
        "this name belongs to an account, a bot or the server: choose another",
        field="name",
    )


def unknown_token() -> RaceError:
    return RaceError(ErrorCode.BAD_TOKEN, "unknown or expired session token")


def too_many_new_sessions(wait_ms: int) -> RaceError:
    return RaceError(
        ErrorCode.RATE_LIMITED,
        "too many new sessions from this address; resume one with its token",
        retry_ms=wait_ms,
    )


def new_session_name(asked: str | None, suffix: str) -> str:
    """The name asked, or a generated one ("player-" and a random `suffix`)."""
    return asked or f"player-{suffix}"


def rejoins(race: Race | None) -> TypeGuard[Race]:
    """Whether the connection takes part in this race where its player holds a seat
    (None: the race is gone)."""
    return race is not None and race.status != RaceStatus.FINISHED
