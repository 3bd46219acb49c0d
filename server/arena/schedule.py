"""Arenas and their schedule (pure; times are ms since the epoch, passed in).

An *arena* is a window of time in which joined players are paired
continuously into races of one game. It *opens for joining* when it is
created, *runs* from ``starts`` (inclusive) to ``ends`` (exclusive) and
pairs players only while running; races formed before ``ends`` still count
if they finish within the race clock after it (``grace_ms``).

Recurring arenas come from a ``Schedule``: a list of ``Recurrence`` rules
("every hour at :00, 30 minutes of racing-aces", "every day at 20:00 UTC,
an hour of a game that rotates by day"). ``arenas_between`` expands them for
a window of time into ``Arena`` values with deterministic ids, so every
server process computes the same arenas and creating one is idempotent.

Nothing here reads a clock: callers pass ``now`` (ms).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from protocol.rules.facts import game_name

HOUR_MS = 3_600_000
DAY_MS = 24 * HOUR_MS
MIN_SEATS, MAX_SEATS = 2, 4
MIN_DURATION_MS = 10_000
MAX_DURATION_MS = DAY_MS  # the standings' packed score holds times up to 37 h
#: How far ahead of now a client's `arena_create` may start an arena (a week); and at most
#: MAX_DURATION_MS before now: the servers look back that far for arenas to pair and finalize.
MAX_STARTS_AHEAD_MS = 7 * DAY_MS
MIN_TIME_LIMIT_S, MAX_TIME_LIMIT_S = 30, 3600

UPCOMING, RUNNING, OVER = "upcoming", "running", "over"

_ID_RE = re.compile(r"[a-z0-9][a-z0-9-]{0,63}")


class ArenaError(Exception):
    """A refused arena request; ``code`` is a stable protocol error code.

    ``bad-arena``, ``unknown-game``, ``bad-schedule`` (validation here);
    ``no-arena``, ``arena-over`` (the store: no such arena; joining after its end).
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True, slots=True)
class Arena:
    """One arena. ``time_limit_s`` is the clock of each of its races."""

    id: str
    game: str
    starts: int
    duration_ms: int
    seats: int = 2
    berserk: bool = True
    time_limit_s: int = 300
    name: str = ""

    @property
    def ends(self) -> int:
        return self.starts + self.duration_ms

    @property
    def grace_ms(self) -> int:
        """How long after ``ends`` races formed before it may still finish and count (the
        store adds the countdown before their clocks start)."""
        return self.time_limit_s * 1000 + 5_000

    def to_dict(self) -> dict[str, str | int | bool]:
        return {
            "id": self.id,
            "game": self.game,
            "starts": self.starts,
            "duration_ms": self.duration_ms,
            "ends": self.ends,
            "seats": self.seats,
            "berserk": self.berserk,
            "time_limit_s": self.time_limit_s,
            "name": self.name,
        }

    @classmethod
    def from_dict(cls, d: dict[str, str]) -> Arena:
        """From the strings of the Redis meta hash (or a ``to_dict``)."""
        return cls(
            id=str(d["id"]),
            game=str(d["game"]),
            starts=int(d["starts"]),
            duration_ms=int(d["duration_ms"]),
            seats=int(d["seats"]),
            berserk=str(d["berserk"]) in ("1", "True", "true"),
            time_limit_s=int(d["time_limit_s"]),
            name=str(d.get("name", "")),
        )


def validate(arena: Arena, games: Sequence[str]) -> Arena:
    """``arena`` if it is well-formed, else ``ArenaError`` (``bad-arena`` or ``unknown-game``)."""
    if not _ID_RE.fullmatch(arena.id):
        raise ArenaError("bad-arena", f"arena id {arena.id!r}: 1-64 of a-z 0-9 -, not starting with -")
    if arena.game not in games:
        raise ArenaError("unknown-game", f"no game {arena.game!r}")
    if not MIN_SEATS <= arena.seats <= MAX_SEATS:
        raise ArenaError("bad-arena", f"seats {arena.seats}: {MIN_SEATS}..{MAX_SEATS}")
    if not MIN_DURATION_MS <= arena.duration_ms <= MAX_DURATION_MS:
        raise ArenaError(
            "bad-arena", f"duration {arena.duration_ms} ms: {MIN_DURATION_MS}..{MAX_DURATION_MS}"
        )
    if not MIN_TIME_LIMIT_S <= arena.time_limit_s <= MAX_TIME_LIMIT_S:
        raise ArenaError(
            "bad-arena", f"time limit {arena.time_limit_s} s: {MIN_TIME_LIMIT_S}..{MAX_TIME_LIMIT_S}"
        )
    if arena.starts < 0:
        raise ArenaError("bad-arena", "negative start time")
    return arena


def check_start(arena: Arena, now: int) -> Arena:
    """``arena`` if a client may create it at ``now`` (its start within MAX_DURATION_MS before
    and MAX_STARTS_AHEAD_MS after), else ``ArenaError`` (``bad-arena``). One older would never
    be finalized; a start or an end too far on broke its keys' expiry (out of Redis's range)
    and the reply (out of MessagePack's) after it was stored."""
    if arena.starts < now - MAX_DURATION_MS:
        raise ArenaError("bad-arena", f"a start more than {MAX_DURATION_MS // HOUR_MS} h ago")
    if arena.starts > now + MAX_STARTS_AHEAD_MS:
        raise ArenaError("bad-arena", f"a start more than {MAX_STARTS_AHEAD_MS // DAY_MS} days ahead")
    return arena


def status(arena: Arena, now: int) -> str:
    """``upcoming`` before the start, ``running`` in ``[starts, ends)``, ``over`` after."""
    if now < arena.starts:
        return UPCOMING
    return RUNNING if now < arena.ends else OVER


T = TypeVar("T")


LISTED_PAST_MS = 24 * HOUR_MS  # arena list: ended arenas shown this long
# Arena list: the scheduled arenas starting this far ahead are listed (status upcoming) before
# the servers create them (an hour ahead), at most UPCOMING_PER_RULE of each rule and game.
# They can be asked for, watched and joined: that creates them (as the schedule would).
LISTED_AHEAD_MS = DAY_MS
UPCOMING_PER_RULE = 2
#: Arena list: at most this many arenas of each status, the soonest to start (upcoming), the
#: latest started (running) and the latest ended (over); a reply that left some out says
#: ``more``. Every arena created (`arena_create`, the schedule) made the reply longer: 1,800
#: arenas were 233 kB, near the OUTBOUND_BYTES (256 kB) a client may hold in the server.
LISTED_PER_STATUS = 100
#: Arena list: at most this many started arenas (running or ended) read for one reply, the
#: latest started first; past it the reply says ``more``. The default schedule starts about
#: 50 per game in the two days looked back (an arena ended a day ago may have run a day).
LISTED_READS = 4 * LISTED_PER_STATUS


def listing_cut(
    arenas: Sequence[tuple[Arena, T]], now: int, past_ms: int, per_status: int
) -> tuple[list[tuple[Arena, T]], bool]:
    """The arena list's choice (docs/protocol.md §5a ``arenas``) among ``arenas`` (each with what
    goes with it): those not ended more than ``past_ms`` ago, at most ``per_status`` of each
    status (the soonest to start, the latest started, the latest ended); and whether some were
    left out."""
    by_status: dict[str, list[tuple[Arena, T]]] = {UPCOMING: [], RUNNING: [], OVER: []}
    for entry in arenas:
        if entry[0].ends > now - past_ms:
            by_status[status(entry[0], now)].append(entry)
    by_status[UPCOMING].sort(key=lambda e: (e[0].starts, e[0].id))
    by_status[RUNNING].sort(key=lambda e: (-e[0].starts, e[0].id))
    by_status[OVER].sort(key=lambda e: (-e[0].ends, e[0].id))
    kept: list[tuple[Arena, T]] = []
    for group in by_status.values():
        kept += group[:per_status]
    return kept, any(len(group) > per_status for group in by_status.values())


def time_left_ms(arena: Arena, now: int) -> int:
    """Milliseconds of pairing left (0 once over; the full duration before the start)."""
    return max(0, arena.ends - max(now, arena.starts))


# --- recurring arenas -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Recurrence:
    """Arenas every ``every_ms``, starting ``offset_ms`` after each multiple of it (UTC).

    ``games``: one arena per game at each occurrence, or, with ``rotate``, one
    arena per occurrence whose game cycles through ``games`` (occurrence
    number modulo their count). ``kind`` names the rule in the arena ids.
    """

    kind: str
    games: tuple[str, ...]
    every_ms: int
    duration_ms: int
    offset_ms: int = 0
    rotate: bool = False
    seats: int = 2
    berserk: bool = True
    time_limit_s: int = 300

    def __post_init__(self) -> None:
        if not re.fullmatch(r"[a-z0-9]{1,16}", self.kind):
            raise ArenaError("bad-schedule", f"kind {self.kind!r}: 1-16 of a-z 0-9")
        if not self.games:
            raise ArenaError("bad-schedule", f"{self.kind}: no games")
        if self.every_ms <= 0 or not 0 <= self.offset_ms < self.every_ms:
            raise ArenaError("bad-schedule", f"{self.kind}: need every > 0 and 0 <= offset < every")
        if self.every_ms % 60_000 or self.offset_ms % 60_000:
            raise ArenaError("bad-schedule", f"{self.kind}: every and offset in whole minutes (arena ids)")
        if self.duration_ms <= 0:
            raise ArenaError("bad-schedule", f"{self.kind}: need duration > 0")
        if self.duration_ms > self.every_ms:
            raise ArenaError("bad-schedule", f"{self.kind}: arenas of one rule must not overlap")


@dataclass(frozen=True, slots=True)
class Schedule:
    rules: tuple[Recurrence, ...] = field(default_factory=tuple)


def default_schedule(games: Sequence[str]) -> Schedule:
    """Hourly 30-minute arenas of every game at :00, and a daily hour at 20:00 UTC
    whose game rotates by day."""
    gs = tuple(games)
    return Schedule(
        (
            Recurrence("hourly", gs, every_ms=HOUR_MS, duration_ms=30 * 60_000),
            Recurrence(
                "daily", gs, every_ms=DAY_MS, duration_ms=HOUR_MS, offset_ms=20 * HOUR_MS, rotate=True
            ),
        )
    )


def arena_id(kind: str, game: str, starts: int) -> str:
    """The deterministic id of a scheduled arena: ``KIND-GAME-STARTS`` (start in minutes)."""
    return f"{kind}-{game}-{starts // 60_000}"


def arena_name(rule: Recurrence, game: str, starts: int) -> str:
    """The name people see for an arena of ``rule``: its kind and game's display name,
    ``Hourly Fours Up``; a rule of whole days adds the time of day, ``Daily Racing Aces ·
    20:00 UTC`` (the ids stay ``KIND-GAME-MINUTES``)."""
    name = f"{rule.kind.capitalize()} {game_name(game)}"
    if rule.every_ms % DAY_MS == 0:
        minute = starts % DAY_MS // 60_000
        name += f" · {minute // 60:02d}:{minute % 60:02d} UTC"
    return name


def occurrences(rule: Recurrence, start: int, end: int) -> list[Arena]:
    """The arenas of ``rule`` that overlap ``[start, end)``, by start time then game."""
    out: list[Arena] = []
    # the first occurrence that may still be running at `start`
    k = (start - rule.offset_ms - rule.duration_ms) // rule.every_ms + 1
    while True:
        starts = k * rule.every_ms + rule.offset_ms
        if starts >= end:
            break
        if starts + rule.duration_ms > start:
            games = (rule.games[k % len(rule.games)],) if rule.rotate else rule.games
            for game in games:
                out.append(
                    Arena(
                        id=arena_id(rule.kind, game, starts),
                        game=game,
                        starts=starts,
                        duration_ms=rule.duration_ms,
                        seats=rule.seats,
                        berserk=rule.berserk,
                        time_limit_s=rule.time_limit_s,
                        name=arena_name(rule, game, starts),
                    )
                )
        k += 1
    return out


def arenas_between(schedule: Schedule, start: int, end: int) -> list[Arena]:
    """Every scheduled arena overlapping ``[start, end)``, ordered by start, then id."""
    found = [a for rule in schedule.rules for a in occurrences(rule, start, end)]
    return sorted(found, key=lambda a: (a.starts, a.id))


def upcoming(schedule: Schedule, start: int, end: int, per_rule: int) -> list[Arena]:
    """The scheduled arenas starting in ``[start, end)``, at most ``per_rule`` of each rule and
    game (the soonest), ordered by start, then id: what the arena list shows ahead of their
    creation (a rule of hours would otherwise crowd out a daily one)."""
    found: list[Arena] = []
    for rule in schedule.rules:
        kept: dict[str, int] = {}
        for a in occurrences(rule, start, end):
            if a.starts >= start and kept.get(a.game, 0) < per_rule:
                kept[a.game] = kept.get(a.game, 0) + 1
                found.append(a)
    return sorted(found, key=lambda a: (a.starts, a.id))


def scheduled(schedule: Schedule, arena_id: str, start: int, end: int) -> Arena | None:
    """The scheduled arena ``arena_id`` if it overlaps ``[start, end)``, else None."""
    return next((a for a in arenas_between(schedule, start, end) if a.id == arena_id), None)


# --- the schedule's config ------------------------------------------------------------

_DURATION_RE = re.compile(r"(\d+)(ms|s|m|h|d)")
_UNIT_MS = {"ms": 1, "s": 1000, "m": 60_000, "h": HOUR_MS, "d": DAY_MS}


def parse_duration(v: object) -> int:
    """ms from an int (ms) or a string such as ``30m``, ``1h``, ``20h30m``, ``1d``."""
    if isinstance(v, bool):
        raise ArenaError("bad-schedule", f"not a duration: {v!r}")
    if isinstance(v, int):
        return v
    if isinstance(v, str) and v and _DURATION_RE.sub("", v) == "":
        return sum(int(n) * _UNIT_MS[u] for n, u in _DURATION_RE.findall(v))
    raise ArenaError("bad-schedule", f"not a duration: {v!r}")


def schedule_from_config(rules: Sequence[Mapping[str, Any]], games: Sequence[str]) -> Schedule:
    """A ``Schedule`` from plain data (JSON, TOML), one map per rule::

        {"kind": "hourly", "games": "*", "every": "1h", "duration": "30m"}
        {"kind": "daily", "games": ["fours-up", "rouge-et-noir"], "every": "1d",
         "offset": "20h", "duration": "1h", "rotate": true, "seats": 4}

    ``games``: a list, one game's id, or ``"*"`` for every game. Optional: ``offset`` (0),
    ``rotate`` (false), ``seats`` (2), ``berserk`` (true), ``time_limit_s`` (300).
    """
    out = []
    known = {"kind", "games", "every", "duration", "offset", "rotate", "seats", "berserk", "time_limit_s"}
    for rule in rules:
        extra = set(rule) - known
        if extra:
            raise ArenaError("bad-schedule", f"unknown fields {sorted(extra)}")
        try:
            names = _games_of(rule["games"], games)
            r = Recurrence(
                kind=str(rule["kind"]),
                games=names,
                every_ms=parse_duration(rule["every"]),
                duration_ms=parse_duration(rule["duration"]),
                offset_ms=parse_duration(rule.get("offset", 0)),
                rotate=bool(rule.get("rotate", False)),
                seats=int(rule.get("seats", 2)),
                berserk=bool(rule.get("berserk", True)),
                time_limit_s=int(rule.get("time_limit_s", 300)),
            )
        except KeyError as e:
            raise ArenaError("bad-schedule", f"missing field {e.args[0]!r}") from None
        for g in r.games:
            if g not in games:
                raise ArenaError("unknown-game", f"no game {g!r}")
        # every arena of the rule must be valid; check one (the first starting at or after 0:
        # one that runs across 0 started before it)
        validate(next(a for a in occurrences(r, 0, r.every_ms) if a.starts >= 0), games)
        out.append(r)
    return Schedule(tuple(out))


def _games_of(value: Any, games: Sequence[str]) -> tuple[str, ...]:
    """A rule's ``games``: ``"*"`` (every game), one game's id, or a list of them. A string was
    read letter by letter ("no game 'r'" for "racing-aces")."""
    if value == "*":
        return tuple(games)
    if isinstance(value, str):
        return (value,)
    if not isinstance(value, list | tuple):
        raise ArenaError("bad-schedule", f'games: a list of game ids, one id or "*", not {value!r}')
    return tuple(str(g) for g in value)


def parse_schedule(text: str, games: Sequence[str]) -> Schedule:
    """The recurring arenas of the ``arena_schedule`` setting (a JSON list of rules, empty for
    the default, ``off`` for none); ``ValueError`` saying what is wrong with it (the server
    does not start)."""
    if text.strip() == "off":
        return Schedule()
    if not text.strip():
        return default_schedule(games)
    try:
        rules = json.loads(text)
        if not isinstance(rules, list) or not all(isinstance(r, dict) for r in rules):
            raise ArenaError("bad-schedule", "not a JSON list of rules (maps)")
        return schedule_from_config(rules, games)
    except (ArenaError, json.JSONDecodeError, TypeError, ValueError) as exc:
        raise ValueError(f"--arena-schedule: {exc}") from None
