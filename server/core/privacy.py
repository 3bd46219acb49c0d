"""Who may see a race (docs/protocol.md §3 "Privacy"): plain decisions, no I/O.

- A public race is visible to anyone: `resync`, `spectate`, `join`, `replay`.
- A private race is visible to its players and to holders of its invite (a
  secret handed to the creator and to every player of the race, and carried
  in the race's link; the race id alone is not enough).
- A daily attempt's race (sealed) has no invite: it is visible to nobody but
  its player until it ends; then its snapshot (not its events) may be
  resynced, but it can never be joined or spectated, and its moves
  (`replay`) wait for its day to close (the daily's own check).

Players always see their own race, so a player is never refused seeing it with
`private-race`: spectating your own race is `is-player`, private or not. (A daily
attempt's player is refused `ready`, `start` and `leave` with `private-race`: the
server runs that race, server/handlers/lobby.py.)
The race's invite and privacy never change, so a check on a race loaded
before a compare-and-set still holds after it.
"""

from __future__ import annotations

import hmac

from protocol.messages import ErrorCode

from .races import FINISHED, Race, RaceError


def private_race() -> RaceError:
    return RaceError(ErrorCode.PRIVATE_RACE, "this race is private: its invite is needed")


def _holds_invite(race: Race, invite: str | None) -> bool:
    if not race.invite or invite is None:
        return False
    return hmac.compare_digest(race.invite.encode(), invite.encode())


def may_see(race: Race, player: str, invite: str | None) -> bool:
    """Whether `player` (with `invite`, if they sent one) may follow the race."""
    if race.seat_of(player) is not None:
        return True
    if race.sealed:
        return race.status == FINISHED
    if not race.private:
        return True
    return _holds_invite(race, invite)


def check_see(race: Race, player: str, invite: str | None) -> None:
    """`resync` and `replay`: refused with `private-race` when the race is not visible."""
    if not may_see(race, player, invite):
        raise private_race()


def check_join(race: Race, player: str, invite: str | None) -> None:
    """`join`: a daily attempt is never joined; a private race needs its invite."""
    if race.seat_of(player) is not None:
        return
    if race.sealed or (race.private and not _holds_invite(race, invite)):
        raise private_race()


def check_spectate(race: Race, player: str, invite: str | None) -> None:
    """`spectate`: players are told `is-player`; a daily attempt has no spectators;
    a private race needs its invite."""
    if race.seat_of(player) is not None:
        raise RaceError(ErrorCode.IS_PLAYER, "you play in this race")
    if race.sealed or (race.private and not _holds_invite(race, invite)):
        raise private_race()


def may_see_events(race: Race, player: str) -> bool:
    """Whether `resync` may replay the race's events to a player who may see it: not
    an ended daily attempt's to others (move by move they tell when each move was
    made; its snapshot, the result on the leaderboard, stands alone)."""
    return not race.sealed or race.seat_of(player) is not None


def invite_for(race: Race, player: str) -> str | None:
    """The invite a reply to `player` carries: only a player's, of a private race that has one."""
    if race.invite and race.seat_of(player) is not None:
        return race.invite
    return None
