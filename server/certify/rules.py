"""Pure decisions of server/certify (no I/O): tested without Redis or sockets."""

from __future__ import annotations

from protocol import rules as game_rules
from protocol.messages import ErrorCode, PlayerStatus, RaceStatus

from ..core import races as R
from ..core.races import RaceError


def certified_games(setting: str) -> frozenset[str]:
    """The games of the `certified_games` setting: "all", "none" or a comma list."""
    text = setting.strip().lower()
    if text == "all":
        return frozenset(game_rules.GAMES)
    if text in ("", "none"):
        return frozenset()
    return frozenset(g.strip() for g in text.split(",") if g.strip())


def hints_allowed(race: R.Race) -> bool:
    """Hints are for casual solo play: a race with one seat, not a daily attempt
    (sealed), not rated, not created with `hints: false`. A race of several
    players never gets hints (nobody could tell whether the others agreed)."""
    return race.hints and not race.sealed and not race.rated and race.seats == 1 and len(race.players) == 1


def check_hint(race: R.Race, player: str) -> R.Player:
    """The player's seat, if they may ask for a hint now; else the refusal."""
    p = race.seat_of(player)
    if p is None:
        raise RaceError(ErrorCode.NOT_IN_RACE, "you have no seat in this race")
    if not hints_allowed(race):
        raise RaceError(ErrorCode.HINTS_FORBIDDEN, "hints are only for casual solo races")
    if race.status != RaceStatus.RUNNING:
        raise RaceError(ErrorCode.RACE_NOT_RUNNING, "the race is not running")
    if p.status != PlayerStatus.PLAYING:
        raise RaceError(ErrorCode.GAME_OVER, "your game is over")
    return p
