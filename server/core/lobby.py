"""A race before its start: creation, join, leave, ready, the host's start, the countdown.

Each change takes the loaded race and returns the changed copy, or raises
`RaceError` with the protocol error code of the refusal. Several processes
may change the same race: the lobby handler loads it, applies a change,
and commits what `lobby_commit` says compare-and-set on the loaded version;
on a conflict it waits `retry_delay_s` and starts again, at most
`CAS_ATTEMPTS` times.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from protocol import messages as m
from protocol import rules
from protocol.messages import ErrorCode

from .lifecycle import ttl_ms
from .race_views import snapshot
from .record import COUNTDOWN, LOBBY, READY, WAITING, Player, Race, RaceError, is_bot

#: Compare-and-set attempts of one lobby change before it is refused (`internal`, "too busy").
CAS_ATTEMPTS = 20

#: A public lobby noted for its creator's address but not stored (yet) counts this long, ms:
#: its creation may still be under way on another process; one that failed is forgotten then.
PENDING_LOBBY_MS = 60_000


@dataclass(frozen=True, slots=True)
class LobbyCommit:
    """What one lobby change writes, compare-and-set on the version it was loaded at."""

    race: Race  # the new state, its version set
    event: bytes  # the `race` snapshot published at race.ver
    ttl_ms: int  # how long the race's keys live from now
    timer: int | None  # the countdown's end when this change started it (the sweeper's next look)


def lobby_commit(old: Race, new: Race, now: int, lobby_ttl_s: int, finished_ttl_s: int) -> LobbyCommit | None:
    """What to write after a change turned `old` into `new` (None: the change was a no-op)."""
    if new is old:
        return None
    new.ver = old.ver + 1
    started = new.status == COUNTDOWN and old.status != COUNTDOWN
    return LobbyCommit(
        race=new,
        event=m.encode(m.RaceSnapshot(**snapshot(new))),
        ttl_ms=ttl_ms(new, now, lobby_ttl_s, finished_ttl_s),
        timer=new.starts_at if started else None,
    )


def open_lobbies(
    noted: Sequence[tuple[str, int]], loaded: Sequence[Race | None | BaseException], now: int
) -> tuple[list[str], list[str]]:
    """(the races still open public lobbies, the ones to forget) among the races noted for
    one address (race id, when noted), as loaded (a race, None when gone, or the error of
    its read).

    Open: in its lobby with someone seated (a race everybody left is off the list), or
    not stored yet and noted less than PENDING_LOBBY_MS ago. A race whose read failed
    counts as open: a refusal is safer than a list filled while Redis stumbles.
    """
    still: list[str] = []
    gone: list[str] = []
    for (rid, at), race in zip(noted, loaded, strict=True):
        if isinstance(race, BaseException):
            still.append(rid)
        elif race is None:
            (still if now - at < PENDING_LOBBY_MS else gone).append(rid)
        elif race.status == LOBBY and race.players:
            still.append(rid)
        else:
            gone.append(rid)
    return still, gone


def retry_delay_s(attempt: int) -> float:
    """The wait after the `attempt`-th conflict (from 0): short, longer as writers keep colliding."""
    return 0.001 * attempt


def new_race(
    *,
    race: str,
    game: str,
    total: int,
    seats: int,
    time_limit_s: int,
    private: bool,
    host: str,
    host_name: str,
    now: int,
    seed: str,
    host_account: bool = False,
) -> Race:
    """A race in its lobby with the host in seat 0 (`host_account`: the host is an account).
    The seed's commitment and the rules' and deal's versions are this server's, taken here
    so that no caller can record another."""
    r = Race(
        race=race,
        game=game,
        total=total,
        seats=seats,
        time_limit_s=time_limit_s,
        private=private,
        host=host,
        created=now,
        seed=seed,
        commitment=rules.seed_commitment(seed),
        rules_version=rules.RULES_VERSION,
        deal_version=rules.DEAL_VERSION,
        ver=1,
    )
    r.players.append(Player(host, host_name, account=host_account))
    return r


def new_quick_race(
    *,
    race: str,
    game: str,
    total: int,
    time_limit_s: int,
    players: list[tuple[str, str]],
    now: int,
    countdown_ms: int,
    seed: str,
    accounts: Collection[str] = (),
) -> Race:
    """A public quick-match race, full at once, counting down immediately (no `ready`);
    the players of `accounts` sit as accounts."""
    r = new_race(
        race=race,
        game=game,
        total=total,
        seats=len(players),
        time_limit_s=time_limit_s,
        private=False,
        host="",
        host_name="",
        now=now,
        seed=seed,
    )
    r.quick = True
    r.players = []  # no host: the players, as the queue matched them
    for pid, name in players:
        r.players.append(Player(pid, seat_name(r, name), ready=True, status=READY, account=pid in accounts))
    _start_countdown(r, now, countdown_ms)
    return r


def join(race: Race, player: str, name: str, account: bool = False) -> Race:
    """Take a free seat (`account`: as an account). Joining a race you sit in is a no-op
    (returns it unchanged). A lobby with no host (an unattended one emptied, presence.py
    `release`) gets its first player who is not a bot as host: otherwise nobody could start it."""
    if race.seat_of(player) is not None:
        return race
    if race.status != LOBBY:
        raise RaceError(ErrorCode.RACE_STARTED, "the race has already started")
    if len(race.players) >= race.seats:
        raise RaceError(ErrorCode.RACE_FULL, "every seat is taken")
    r = race.copy()
    r.players.append(Player(player, seat_name(r, name), account=account))
    if not r.host and not r.quick and not is_bot(player):
        r.host = player
    return r


def seat_name(race: Race, name: str) -> str:
    """`name`, or "name 2", "name 3"… if a player of the race has it already: two bots of a
    level, or two guests called ada, are told apart on every board and ranking."""
    taken = {p.name for p in race.players}
    if name not in taken:
        return name
    n = 2
    while f"{name} {n}" in taken:
        n += 1
    return f"{name} {n}"


def leave(race: Race, player: str) -> Race:
    """Give up a seat before the countdown. The host leaving hands the race to the next seat."""
    if race.seat_of(player) is None:
        raise RaceError(ErrorCode.NOT_IN_RACE, "you have no seat in this race")
    if race.status != LOBBY:
        raise RaceError(ErrorCode.RACE_STARTED, "the race has already started; use finish")
    r = race.copy()
    r.players = [p for p in r.players if p.player != player]
    if r.host == player:
        r.host = r.players[0].player if r.players else ""
    return r


def set_ready(race: Race, player: str, ready: bool, now: int, countdown_ms: int) -> Race:
    """Mark a player (not) ready; a full race with everyone ready starts its countdown."""
    p = race.seat_of(player)
    if p is None:
        raise RaceError(ErrorCode.NOT_IN_RACE, "you have no seat in this race")
    if race.status != LOBBY:
        raise RaceError(ErrorCode.RACE_STARTED, "the race has already started")
    if p.ready == ready:
        return race  # nothing changes: no new version, no event
    r = race.copy()
    p = r.seat_of(player)
    assert p is not None
    p.ready = ready
    p.status = READY if ready else WAITING
    if len(r.players) == r.seats and all(q.ready for q in r.players):
        _start_countdown(r, now, countdown_ms)
    return r


def host_start(race: Race, player: str, now: int, countdown_ms: int) -> Race:
    """The host starts with the players present, who must all be ready (two at least in a
    rated race)."""
    if race.seat_of(player) is None:
        raise RaceError(ErrorCode.NOT_IN_RACE, "you have no seat in this race")
    # Here, on the race the start commits, not on one read before it: a player leaving in
    # between would otherwise start a rated race of one.
    if race.rated and len(race.players) < 2:
        raise RaceError(ErrorCode.NOT_RATEABLE, "a rated race needs at least 2 players")
    if race.host != player:
        raise RaceError(ErrorCode.NOT_HOST, "only the host may start the race")
    if race.status != LOBBY:
        raise RaceError(ErrorCode.RACE_STARTED, "the race has already started")
    if not all(p.ready for p in race.players):
        raise RaceError(ErrorCode.NOT_READY, "every present player must be ready")
    r = race.copy()
    r.seats = len(r.players)  # nobody else may join a started race
    _start_countdown(r, now, countdown_ms)
    return r


def _start_countdown(r: Race, now: int, countdown_ms: int) -> None:
    r.status = COUNTDOWN
    r.starts_at = now + countdown_ms
    r.deadline = r.starts_at + r.time_limit_s * 1000
