"""The `progress` event (docs/protocol.md §3), built in one place.

A progress event is a MessagePack map of 9 entries, in this order::

    t race player n home status ver total at

Three producers, one layout:

- ``progress``: the whole frame, from Python (a player stopped by the clock);
- ``progress_head`` + ``progress_prefix``: the move path's frame up to its
  version, packed by hand per move (a few bytes joined, no msgpack call);
  ``move.lua`` appends ``ver`` (uint32), ``total`` (uint8) and ``at``
  (uint64) as it stores the move, and publishes the result unchanged;
- ``move.lua`` packs a declared finish's frame itself (cmsgpack, same fields).

tests/server/test_server_redis.py checks that the hand-packed frame decodes to
the same `Progress` message.
"""

from __future__ import annotations

import msgspec

from protocol import messages as m

_UINT8 = [bytes((i,)) if i < 128 else bytes((0xCC, i)) for i in range(256)]


def _mp_uint(i: int) -> bytes:
    """MessagePack encoding of a non-negative int (smallest form)."""
    if i < 256:
        return _UINT8[i]
    if i < 65536:
        return b"\xcd" + i.to_bytes(2, "big")
    return b"\xce" + i.to_bytes(4, "big")


def _mp_str(s: str) -> bytes:
    return msgspec.msgpack.encode(s)


def progress(race: str, ver: int, player: str, n: int, home: int, total: int, status: str, at: int) -> bytes:
    """A whole progress frame."""
    return m.encode(
        m.Progress(race=race, ver=ver, player=player, n=n, home=home, total=total, status=status, at=at)
    )


def progress_head(race: str, player: str) -> bytes:
    """The constant start of a player's progress frames: the map header, t, race, player, the key n."""
    return b"\x89\xa1t\xa8progress\xa4race" + _mp_str(race) + b"\xa6player" + _mp_str(player) + b"\xa1n"


def progress_prefix(head: bytes, n: int, home: int, won: bool) -> bytes:
    """One move's frame up to the version: `head`, then n, home, status and the key ver with
    the uint32 marker (the script appends the version, total and at)."""
    return b"%s%s\xa4home%s\xa6status%s\xa3ver\xce" % (
        head,
        _mp_uint(n),
        _mp_uint(home),
        b"\xa3won" if won else b"\xa7playing",
    )
