"""Provable fairness of the daily deal: secret, seed derivation, commitment.

The seed of the daily deal of game ``G`` on UTC day ``D`` is::

    seed = HMAC-SHA256(key = SECRET as UTF-8 bytes,
                       msg = f"{G}|{D}" as UTF-8 bytes).hexdigest()

for example ``msg = b"racing-aces|2025-03-14"``: the game id (docs/rules.md), one
``|``, the date as ``YYYY-MM-DD``. The seed is those 64 lowercase hex
characters, used as any seed is (docs/rules.md, the deal algorithm: its UTF-8 bytes feed the
deal). Its commitment is ``sha256(seed as UTF-8).hexdigest()``, the same
commitment as any race's.

The commitment is published when the day opens; the seed only after the day
closes. Knowing the seeds of past days tells nothing about future ones
without the secret (HMAC is a PRF). The server secret is generated once
(``secrets.token_hex(32)``: 64 hex characters, used as the UTF-8 bytes of
that text, like a configured secret) and kept in Redis, created with
``SET NX`` so that concurrent server processes agree on one; an operator may
instead configure it (``SOLRACE_DAILY_SECRET``). Changing the secret changes
every seed not yet revealed: never do it during a day.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from protocol.rules import seed_commitment

from .days import parse_date

__all__ = ["daily_message", "daily_seed", "new_secret", "seed_commitment"]


def daily_message(game: str, date: str) -> bytes:
    """The exact HMAC message: ``f"{game}|{date}"`` in UTF-8."""
    parse_date(date)
    if not game or "|" in game:
        raise ValueError(f"bad game id {game!r}")
    return f"{game}|{date}".encode()


def daily_seed(secret: str, game: str, date: str) -> str:
    """HMAC-SHA256(secret, f"{game}|{date}") in lowercase hex (64 characters)."""
    if not secret:
        raise ValueError("empty daily secret")
    return hmac.new(secret.encode("utf-8"), daily_message(game, date), hashlib.sha256).hexdigest()


def new_secret() -> str:
    """A fresh server secret: 32 random bytes as 64 hex characters."""
    return secrets.token_hex(32)
