"""The decisions of `hello` (docs/protocol.md §2): who the connection is, and what it rejoins.

A hello with a token resumes that session (a guest's or an account's); one
without creates a session, counted against the client address's limit of
new sessions unless the address is exempt (local tools). After it, the
connection takes part in every race where the player holds a seat and which
is not finished.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TypeGuard

from protocol import messages as m
from protocol.messages import ErrorCode, RaceStatus

from .record import Race, RaceError

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@dataclass(frozen=True, slots=True)
class HelloPlan:
    resume: str | None  # the session token to resume; None: a new session
    count_new: bool  # a new session counted against the address's limit


def exempt_networks(spec: str) -> list[Network]:
    """The networks of the `limit_exempt` setting (comma-separated, host bits allowed)."""
    return [ipaddress.ip_network(x.strip(), strict=False) for x in spec.split(",") if x.strip()]


def limit_exempt(addr: str, exempt: Iterable[Network]) -> bool:
    """Whether new sessions from `addr` go uncounted (an address in an exempt network)."""
    try:
        ip = ipaddress.ip_address(addr)
    except ValueError:
        return False
    return any(ip in net for net in exempt)


def plan_hello(
    v: int, name: str | None, token: str | None, addr: str, *, max_name: int, exempt: Iterable[Network]
) -> HelloPlan:
    """Resume or create, and whether the address's limit counts it; refuses a protocol
    version the server does not speak and an over-long name."""
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
    return HelloPlan(resume=None, count_new=not limit_exempt(addr, exempt))


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
