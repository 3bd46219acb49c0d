"""A race from its countdown on: what the clock says is due, the start, the end and its ranking.

Also how long a race's keys live and when the sweeper must look at it again.
"""

from __future__ import annotations

from typing import Any

from protocol import clock, ranking
from protocol.messages import ErrorCode

from .record import COUNTDOWN, DONE, FINISHED, LOBBY, PLAYING, RUNNING, TIMEOUT, Player, Race, RaceError


def own_deadline(race: Race, p: Player) -> int | None:
    """When `p`'s clock runs out: the race's deadline, or half the clock for a berserk."""
    return clock.own_deadline(race.deadline, race.starts_at, race.time_limit_s, p.berserk)


def out_of_time(race: Race, p: Player, now: int) -> bool:
    dl = own_deadline(race, p)
    return p.status == PLAYING and dl is not None and now >= dl


def due(race: Race, now: int) -> str | None:
    """What the clock says must happen now: "start", "end", "timeout" (a berserk player's
    own clock ran out, the race goes on) or None (nothing yet)."""
    if race.status == COUNTDOWN and race.starts_at is not None and now >= race.starts_at:
        return "start"
    if race.status == RUNNING:
        if race.deadline is not None and now >= race.deadline:
            return "end"
        if all(p.status in DONE or out_of_time(race, p, now) for p in race.players):
            return "end"
        if any(out_of_time(race, p, now) for p in race.players):
            return "timeout"
    return None


def ttl_ms(race: Race, now: int, lobby_ttl_s: int, finished_ttl_s: int) -> int:
    """How long the race's keys live after this change: a lobby idles out, a started race
    lasts until its deadline plus a day, a finished one stays for its replay."""
    if race.status == LOBBY:
        return lobby_ttl_s * 1000
    if race.status == FINISHED:
        return finished_ttl_s * 1000
    return max(0, (race.deadline or now) - now) + 86400 * 1000


def next_timer(race: Race) -> int | None:
    """When the sweeper must look at this race again (None: never)."""
    if race.status == COUNTDOWN:
        return race.starts_at
    if race.status == RUNNING:
        # The earliest clock of a player still playing: a berserk's half clock runs out first.
        own = [own_deadline(race, p) for p in race.players if p.status == PLAYING]
        return min((d for d in own if d is not None), default=race.deadline)
    return None


def begin(race: Race, initial_home: int = 0) -> Race:
    """countdown -> running: everyone plays from move 0 (their clock is `starts_at`).

    `initial_home`: cards on the foundations in the deal (Fours Up starts with its 4s there).
    """
    if race.status != COUNTDOWN:
        raise RaceError(ErrorCode.RACE_STARTED, "the race is not counting down")
    r = race.copy()
    r.status = RUNNING
    for p in r.players:
        p.status, p.n, p.home, p.at = PLAYING, 0, initial_home, r.starts_at
    return r


def end(race: Race, now: int, logs: dict[str, list[tuple[int, int]]], initial_home: int = 0) -> Race:
    """running -> finished, with the ranking.

    `logs` maps each player to their move log as (time, cards home after the
    move), oldest first: it gives the earliest moment each final count was
    reached. Players still playing are stopped by the clock (`timeout`, at the
    deadline when it passed, else now).
    """
    if race.status != RUNNING:
        raise RaceError(ErrorCode.RACE_NOT_RUNNING, "the race is not running")
    r = race.copy()
    for p in r.players:
        if p.status == PLAYING:
            dl = own_deadline(r, p)
            p.status, p.at = TIMEOUT, min(now, dl) if dl is not None else now
    r.status = FINISHED
    r.ended = now
    r.ranking = rank(r, logs, initial_home)
    return r


def rank(race: Race, logs: dict[str, list[tuple[int, int]]], initial_home: int = 0) -> list[dict[str, Any]]:
    """The race's ranking rows by the rule in `protocol.ranking`; an account's row says so."""
    start = race.starts_at or 0
    return ranking.rank(
        [
            _marked(
                p,
                ranking.entry(
                    player=p.player,
                    name=p.name,
                    status=p.status,
                    home=p.home,
                    moves=p.n,
                    at=p.at,
                    starts_at=start,
                    log=logs.get(p.player, []),
                    initial_home=initial_home,
                ),
            )
            for p in race.players
        ]
    )


def _marked(p: Player, row: dict[str, Any]) -> dict[str, Any]:
    """`row` with `account` when its seat was an account's (absent otherwise: rows stored
    before the field read alike)."""
    if p.account:
        row["account"] = True
    return row
