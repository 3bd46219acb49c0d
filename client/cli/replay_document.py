"""The shape of a replay document as `solrace verify` reads it (docs/protocol.md §3 `replay`, §5
`daily_replay`): checked before any of it is read, so that a field of the wrong type is the input
error it is (exit 2), not a traceback (exit 1, which reads as REFUTED)."""

from __future__ import annotations

from typing import Any

import msgspec

from . import InputError


class Row(msgspec.Struct):
    """A ranking row (RankEntry); fields verify does not read are let through."""

    rank: int
    player: str
    status: str
    won: bool
    home: int
    moves: int
    name: str | None = None
    time_ms: int | None = None
    home_at_ms: int | None = None
    last_move_ms: int | None = None


class Player(msgspec.Struct):
    player: str
    name: str | None = None
    moves: list[tuple[str, int]] = []
    starts_at: int | None = None
    ended_ms: int | None = None


class Document(msgspec.Struct):
    seed: str | None = None
    commitment: str | None = None
    starts_at: int | None = None
    race: str | None = None
    date: str | None = None
    ranking: list[Row] | None = None
    players: list[Player] | None = None


def shape(doc: dict[str, Any]) -> Document:
    """The fields verify reads, typed; InputError (one line, with where) for a wrong shape."""
    try:
        return msgspec.convert(doc, Document)
    except msgspec.ValidationError as e:
        raise InputError(f"the document is malformed ({e})") from None
