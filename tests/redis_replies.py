"""Replies of the tests' Redis clients, typed as what they are.

redis-py types every reply ``bytes | str`` (it cannot know whether a client decodes); the
tests' clients never set ``decode_responses``, so their replies are bytes. These say so, and
fail on a reply that is not.
"""

from __future__ import annotations

from collections.abc import Mapping


def raw(reply: object) -> bytes:
    """A bulk-string reply."""
    assert isinstance(reply, bytes), f"expected a bytes reply, got {reply!r}"
    return reply


def text(reply: object) -> str:
    """A bulk-string reply, decoded."""
    return raw(reply).decode()


def raw_hash(reply: Mapping[bytes | str, bytes | str]) -> dict[bytes, bytes]:
    """An HGETALL reply."""
    return {raw(k): raw(v) for k, v in reply.items()}
