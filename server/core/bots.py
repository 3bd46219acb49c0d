"""Bots and rematches, the decisions (docs/protocol.md §3 "Bots", "Rematch"): plain functions, no I/O.

A bot is seated by a request the server queues for a bot worker (server/handlers/bots.py);
a rematch is a new race with the settings of a finished one, for the same players.
"""

from __future__ import annotations

from dataclasses import dataclass

from protocol.messages import ErrorCode, RaceStatus

from .races import Race, RaceError

BOT_NAMES = {"random": "Random bot", "greedy": "Greedy bot", "search": "Search bot"}
#: A rematch of a public race is left out of the race list this long after it was made (ms):
#: its offer reaches the previous players at once, and a stranger browsing the list must not
#: take a rival's seat before they could accept. Once it is over, it is listed like any lobby.
REMATCH_UNLISTED_MS = 20_000


def bot_name(level: str) -> str:
    return BOT_NAMES.get(level, "Bot")


def check_bot_seat(race: Race, asker: str) -> None:
    """A bot may be seated by a player of the race, in its lobby, in a free seat."""
    if race.seat_of(asker) is None:
        raise RaceError(ErrorCode.NOT_IN_RACE, "you have no seat in this race")
    if race.sealed:
        raise RaceError(ErrorCode.BAD_MESSAGE, "a daily attempt is played alone", field="race")
    if race.status != RaceStatus.LOBBY:
        raise RaceError(ErrorCode.RACE_STARTED, "the race has already started")
    if len(race.players) >= race.seats:
        raise RaceError(ErrorCode.RACE_FULL, "every seat is taken")


def quick_bots_needed(seats: int, queued: int) -> int:
    """Bots to seat for a quick-match queue of `seats` where `queued` players wait (0 if none wait)."""
    if queued <= 0:
        return 0
    return max(0, seats - queued)


@dataclass(frozen=True, slots=True)
class RematchSettings:
    game: str
    total: int
    seats: int
    time_limit_s: int
    private: bool


def rematch_settings(race: Race, asker: str) -> RematchSettings:
    """The settings of the rematch of `race`, asked by `asker`: a player of the finished race."""
    if race.seat_of(asker) is None:
        raise RaceError(ErrorCode.NOT_IN_RACE, "you had no seat in this race")
    if race.sealed:
        raise RaceError(ErrorCode.BAD_MESSAGE, "a daily attempt has no rematch", field="race")
    if race.status != RaceStatus.FINISHED:
        raise RaceError(ErrorCode.RACE_NOT_OVER, "the race is not over yet")
    return RematchSettings(race.game, race.total, race.seats, race.time_limit_s, race.private)


def offer_to(race: Race, asker: str) -> list[str]:
    """Who receives the rematch offer: every other player of the race, in seat order."""
    return [p.player for p in race.players if p.player != asker]
