"""The checks of requests that do not need the race (docs/protocol.md §3, §6): plain functions
that return the checked value or raise `RaceError` with the protocol's error code."""

from __future__ import annotations

from protocol import rules
from protocol.messages import ErrorCode

from .races import RaceError


def no_such_race() -> RaceError:
    return RaceError(ErrorCode.NO_SUCH_RACE, "no such race")


def not_in_race() -> RaceError:
    return RaceError(ErrorCode.NOT_IN_RACE, "you have no seat in this race")


def game(game_id: str) -> rules.GameDef:
    gdef = rules.GAMES.get(game_id)
    if gdef is None:
        raise RaceError(ErrorCode.UNKNOWN_GAME, f"no game {game_id!r}; known: {', '.join(rules.GAMES)}")
    return gdef


def seats(asked: int | None, default: int, most: int) -> int:
    n = default if asked is None else asked
    if n > most:
        raise RaceError(ErrorCode.BAD_MESSAGE, f"`seats`: at most {most}", field="seats")
    return n


def time_limit(asked: int | None, default: int, least: int, most: int) -> int:
    value = default if asked is None else asked
    if not least <= value <= most:
        raise RaceError(ErrorCode.BAD_MESSAGE, f"`time_limit_s`: {least}..{most}", field="time_limit_s")
    return value


def seat_limit(held: int, most: int) -> None:
    """A player may hold at most `most` seats in unfinished races."""
    if held >= most:
        raise RaceError(ErrorCode.TOO_MANY_RACES, f"you already hold {most} seats")
