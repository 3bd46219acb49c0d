"""Race lifecycle as plain logic over plain data (docs/protocol.md §3 "Races").

No I/O here: the store loads a `Race`, a function below returns the changed
copy (or raises `RaceError` with a protocol error code), and the store commits
it atomically if nobody changed the race meanwhile (compare-and-set on the
race version). That keeps every rule of the lobby, the start, the end and the
ranking testable without Redis or sockets.

The move path is the exception: moves are too frequent for load/compute/CAS,
so they go through one Lua script (server/storage/move.lua, decisions in
server/core/moves.py) that re-checks the few facts it needs (status,
deadline, n) atomically.

Lifecycle::

    lobby --(all seats taken and ready | host start)--> countdown
    countdown --(now >= starts_at)--> running
    running --(every player won/finished | now >= deadline)--> finished

Player status: waiting/ready in the lobby; playing from the start; then won,
finished (declared) or timeout (still playing at their deadline: the race's, or
half of it for an arena player who berserked, see `own_deadline`).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from protocol import ranking
from protocol.messages import ErrorCode, PlayerStatus, RaceStatus

LOBBY, COUNTDOWN, RUNNING, FINISHED = (
    RaceStatus.LOBBY,
    RaceStatus.COUNTDOWN,
    RaceStatus.RUNNING,
    RaceStatus.FINISHED,
)
WAITING, READY, PLAYING = PlayerStatus.WAITING, PlayerStatus.READY, PlayerStatus.PLAYING
WON, DECLARED, TIMEOUT = PlayerStatus.WON, PlayerStatus.FINISHED, PlayerStatus.TIMEOUT
DONE = frozenset((WON, DECLARED, TIMEOUT))


class RaceError(Exception):
    """A refused request; `code` is the protocol error code (docs/protocol.md §6)."""

    def __init__(self, code: ErrorCode, message: str, **extra: object) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.extra = extra  # extra fields of the `error` message (n, reason, field, ...)


@dataclass(slots=True)
class Player:
    player: str
    name: str
    ready: bool = False
    n: int = 0  # moves made
    home: int = 0  # cards home
    status: str = WAITING
    at: int | None = None  # time of the last status change (ms), None before the start
    session: str = ""  # a rated race's seat: the account's login session id (never on the wire)
    berserk: bool = False  # an arena player who took half the clock (their own deadline)


@dataclass(slots=True)
class Race:
    race: str
    game: str
    total: int
    seats: int
    time_limit_s: int
    private: bool
    host: str  # "" for quick-match races
    created: int
    seed: str  # secret until finished
    commitment: str
    rules_version: int = 1
    deal_version: int = 1
    quick: bool = False
    status: str = LOBBY
    ver: int = 0
    starts_at: int | None = None
    deadline: int | None = None
    ended: int | None = None
    players: list[Player] = field(default_factory=list)
    ranking: list[dict[str, Any]] | None = None
    spectators: int = 0
    # A daily challenge attempt (server/daily): its seed never shows in its
    # snapshots or its `end`; the daily reveals it after the day closes.
    sealed: bool = False
    # A private race's secret (core/privacy.py): "" for a public race or a daily attempt.
    invite: str = ""
    # A deal the solver proved winnable (server/certify): its winning line,
    # space-separated, published only once the race is finished.
    certified: bool = False
    proof: str = ""
    hints: bool = True  # false: created with `hints: false` (server/certify/rules.py)
    # Rated: only accounts, the server's settings, ratings updated at the end (server/ratings).
    rated: bool = False

    def seat_of(self, player: str) -> Player | None:
        for p in self.players:
            if p.player == player:
                return p
        return None

    def copy(self) -> Race:
        return copy.deepcopy(self)


# --- creation and the lobby ---------------------------------------------------------


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
    commitment: str,
    rules_version: int = 1,
    deal_version: int = 1,
) -> Race:
    """A race in its lobby with the host in seat 0."""
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
        commitment=commitment,
        rules_version=rules_version,
        deal_version=deal_version,
        ver=1,
    )
    r.players.append(Player(host, host_name))
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
    commitment: str,
    rules_version: int = 1,
    deal_version: int = 1,
) -> Race:
    """A public quick-match race, full at once, counting down immediately (no `ready`)."""
    r = Race(
        race=race,
        game=game,
        total=total,
        seats=len(players),
        time_limit_s=time_limit_s,
        private=False,
        host="",
        created=now,
        seed=seed,
        commitment=commitment,
        rules_version=rules_version,
        deal_version=deal_version,
        quick=True,
        ver=1,
    )
    r.players = [Player(pid, name, ready=True, status=READY) for pid, name in players]
    _start_countdown(r, now, countdown_ms)
    return r


def join(race: Race, player: str, name: str) -> Race:
    """Take a free seat. Joining a race you sit in is a no-op (returns it unchanged)."""
    if race.seat_of(player) is not None:
        return race
    if race.status != LOBBY:
        raise RaceError(ErrorCode.RACE_STARTED, "the race has already started")
    if len(race.players) >= race.seats:
        raise RaceError(ErrorCode.RACE_FULL, "every seat is taken")
    r = race.copy()
    r.players.append(Player(player, name))
    return r


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
    r = race.copy()
    p = r.seat_of(player)
    assert p is not None
    p.ready = ready
    p.status = READY if ready else WAITING
    if len(r.players) == r.seats and all(q.ready for q in r.players):
        _start_countdown(r, now, countdown_ms)
    return r


def host_start(race: Race, player: str, now: int, countdown_ms: int) -> Race:
    """The host starts with the players present, who must all be ready."""
    if race.seat_of(player) is None:
        raise RaceError(ErrorCode.NOT_IN_RACE, "you have no seat in this race")
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


def half_clock_s(time_limit_s: int) -> int:
    """A berserk player's clock: half the race's, rounded up."""
    return (time_limit_s + 1) // 2


def own_deadline(race: Race, p: Player) -> int | None:
    """When `p`'s clock runs out: the race's deadline, or half the clock for a berserk."""
    if not p.berserk or race.starts_at is None:
        return race.deadline
    return race.starts_at + half_clock_s(race.time_limit_s) * 1000


def _start_countdown(r: Race, now: int, countdown_ms: int) -> None:
    r.status = COUNTDOWN
    r.starts_at = now + countdown_ms
    r.deadline = r.starts_at + r.time_limit_s * 1000


# --- start and end --------------------------------------------------------------------


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
    """The race's ranking rows by the rule in `protocol.ranking`."""
    start = race.starts_at or 0
    return ranking.rank(
        [
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
            )
            for p in race.players
        ]
    )


# --- what the wire sees ------------------------------------------------------------------


def snapshot(race: Race) -> dict[str, Any]:
    """The `race` message fields (docs/protocol.md §3): the seed only once finished."""
    return {
        "race": race.race,
        "ver": race.ver,
        "game": race.game,
        "status": race.status,
        "private": race.private,
        "seats": race.seats,
        "time_limit_s": race.time_limit_s,
        "host": race.host,
        "created": race.created,
        "starts_at": race.starts_at,
        "deadline": race.deadline,
        "commitment": race.commitment,
        "seed": race.seed if race.status == FINISHED and not race.sealed else None,
        "total": race.total,
        "players": [
            {
                "player": p.player,
                "name": p.name,
                "ready": p.ready,
                "n": p.n,
                "home": p.home,
                "status": p.status,
                "at": p.at,
                "berserk": p.berserk,
            }
            for p in race.players
        ],
        "ranking": race.ranking if race.status == FINISHED else None,
        "certified": race.certified,
        "rated": race.rated,
    }


def published_proof(race: Race) -> tuple[list[str] | None, int | None]:
    """(proof, par) of `end` and `replay`: a certified deal's winning line and its
    length, once finished (never for a daily attempt's race, whose seed is sealed)."""
    if race.status != FINISHED or race.sealed or not race.certified:
        return None, None
    line = race.proof.split()
    return line, len(line)


def summary(race: Race) -> dict[str, Any]:
    """One entry of `race_list`."""
    return {
        "race": race.race,
        "game": race.game,
        "status": race.status,
        "players": [{"name": p.name, "home": p.home, "status": p.status} for p in race.players],
        "total": race.total,
        "starts_at": race.starts_at,
        "deadline": race.deadline,
        "spectators": max(0, race.spectators),
        "rated": race.rated,
    }
