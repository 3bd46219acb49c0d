"""Ratings over Redis: rated races, ratings, histories, leaderboards.

``Ratings`` takes a ``redis.asyncio`` client (single node or cluster; bytes
or decoded responses) and knows nothing of sockets or races: the race server
calls ``record_race`` with a rated race's final ranking, and the handlers
call the read methods. Every time comes from ``clock`` (ms), injectable for
tests. Accounts (who can be rated) are ``accounts_store.Accounts``.

Exactly once
------------
``record_race`` reads the players' ratings and versions, computes the update
(pure: ``rating.rate_race`` with ``rating.fairness_weights``) and applies it
with one Lua script that first checks the race's marker and the versions.
The script writes every rating, the leaderboard, the histories, the pairing
times and the marker together or not at all. So a second call for the same
race, from another process or a retry after a crash at any point, finds the
marker and returns the stored outcome without changing anything, and an
update computed from ratings that changed meanwhile (the same player in
another race) is recomputed.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from . import keys, scripts
from .common import DAY_MS, Clock, compact_json, system_clock, text
from .rating import (
    NEW,
    PAIR_WINDOW_MS,
    Entrant,
    Rating,
    RatingError,
    check_entrants,
    fairness_weights,
    pair_id,
    rate_race,
    with_race,
)

MARKER_TTL_MS = 30 * DAY_MS
HISTORY_MAX = 500
APPLY_TRIES = 20


@dataclass(frozen=True, slots=True)
class PlayerChange:
    """One player's part of a rated race: rank, weight, rating before and after."""

    player: str
    name: str
    rank: int
    weight: float
    before: Rating
    after: Rating

    def to_json(self) -> dict[str, Any]:
        return {
            "player": self.player,
            "name": self.name,
            "rank": self.rank,
            "weight": self.weight,
            "before": _rating_json(self.before),
            "after": _rating_json(self.after),
        }

    @staticmethod
    def from_json(d: dict[str, Any]) -> PlayerChange:
        return PlayerChange(
            d["player"], d["name"], d["rank"], d["weight"], _rating_of(d["before"]), _rating_of(d["after"])
        )


@dataclass(frozen=True, slots=True)
class RaceOutcome:
    """A rated race's rating changes. ``applied``: this call applied them
    (False: an earlier call had, and these are its stored changes)."""

    game: str
    race: str
    at_ms: int
    players: tuple[PlayerChange, ...]
    applied: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "race": self.race,
            "at": self.at_ms,
            "players": [p.to_json() for p in self.players],
        }

    @staticmethod
    def from_json(d: dict[str, Any], applied: bool) -> RaceOutcome:
        return RaceOutcome(
            d["game"], d["race"], d["at"], tuple(PlayerChange.from_json(p) for p in d["players"]), applied
        )


def _rating_json(r: Rating) -> dict[str, Any]:
    return {
        "mu": r.mu,
        "sigma": r.sigma,
        "races": r.races,
        "rating": r.display,
        "provisional": r.provisional,
    }


def _rating_of(d: dict[str, Any]) -> Rating:
    return Rating(float(d["mu"]), float(d["sigma"]), int(d["races"]))


class Ratings:
    def __init__(
        self,
        redis: Any,
        *,
        clock: Clock = system_clock,
        pair_window_ms: int = PAIR_WINDOW_MS,
        history_max: int = HISTORY_MAX,
    ) -> None:
        """
        ``pair_window_ms``: the fairness rule's window.
        ``history_max``: rated races kept per player and game.
        """
        self.redis = redis
        self.clock = clock
        self.pair_window_ms = pair_window_ms
        self.history_max = history_max
        self._apply = redis.register_script(scripts.APPLY)
        self._board = redis.register_script(scripts.BOARD)

    async def rating(self, game: str, player: str) -> Rating:
        raw = await self.redis.hget(keys.players(game), player)
        return _rating_of(json.loads(raw)) if raw else NEW

    async def ratings(self, player: str, games: Sequence[str]) -> dict[str, Rating]:
        """The player's rating in each game (``NEW`` where never rated): a profile's figures."""
        pipe = self.redis.pipeline(transaction=False)
        for game in games:
            pipe.hget(keys.players(game), player)
        raws = await pipe.execute()
        return {game: _rating_of(json.loads(raw)) if raw else NEW for game, raw in zip(games, raws)}

    async def record_race(
        self, game: str, race: str, entrants: Sequence[Entrant], ended_ms: int | None = None
    ) -> RaceOutcome:
        """Apply a rated race's final ranking to its players' ratings, exactly once.

        ``entrants``: every player of the race with their login session and
        final rank. Errors: ``RatingError('not-rateable')`` (see
        ``rating.check_entrants``; also a player without an account).
        """
        check_entrants(entrants)
        at = self.clock() if ended_ms is None else ended_ms
        players = [e.player for e in entrants]
        # Only accounts are rated; the name kept with the rating (for leaderboards)
        # is the account's, read from its record (``accounts_store``).
        pipe = self.redis.pipeline(transaction=False)
        for p in players:
            pipe.hget(keys.account(p), "name")
        names = [text(n) if n is not None else None for n in await pipe.execute()]
        if any(n is None for n in names):
            raise RatingError("not-rateable", "rated races are only between accounts")
        name_of = dict(zip(players, [n or "" for n in names]))
        pairs = sorted({pair_id(a, b) for a in players for b in players if a < b})
        marker = keys.race(game, race)
        for _ in range(APPLY_TRIES):
            pipe = self.redis.pipeline(transaction=False)
            pipe.get(marker)
            pipe.hmget(keys.players(game), players)
            pipe.hmget(keys.versions(game), players)
            for pid in pairs:
                pipe.get(keys.pair(game, pid))
            done, records, versions, *pair_raw = await pipe.execute()
            if done is not None:
                return RaceOutcome.from_json(json.loads(done), applied=False)
            before = {p: (_rating_of(json.loads(r)) if r else NEW) for p, r in zip(players, records)}
            pairings = {pid: json.loads(raw) if raw else [] for pid, raw in zip(pairs, pair_raw)}
            weights = fairness_weights(players, pairings, at, self.pair_window_ms)
            after = rate_race(entrants, before, weights)
            outcome = RaceOutcome(
                game,
                race,
                at,
                tuple(
                    PlayerChange(
                        e.player,
                        name_of[e.player],
                        e.rank,
                        weights[e.player],
                        before[e.player],
                        after[e.player],
                    )
                    for e in entrants
                ),
                applied=True,
            )
            outcome_json = compact_json(outcome.to_json())
            args: list[Any] = [
                outcome_json,
                MARKER_TTL_MS,
                len(players),
                self.history_max,
                self.pair_window_ms,
            ]
            for e, v in zip(entrants, versions):
                r = after[e.player]
                record = {"mu": r.mu, "sigma": r.sigma, "races": r.races, "name": name_of[e.player], "at": at}
                entry = {
                    "race": race,
                    "at": at,
                    "rank": e.rank,
                    "players": len(entrants),
                    "weight": weights[e.player],
                    "before": _rating_json(before[e.player]),
                    "after": _rating_json(r),
                }
                score = repr(r.ordinal) if not r.provisional else ""
                args += [
                    e.player,
                    text(v) if v is not None else "0",
                    compact_json(record),
                    score,
                    compact_json(entry),
                ]
            updated_pairs = with_race(pairings, players, at, self.pair_window_ms)
            for pid in pairs:
                args.append(compact_json(updated_pairs[pid]))
            res = await self._apply(
                keys=[marker, keys.players(game), keys.versions(game), keys.board(game)]
                + [keys.history(game, p) for p in players]
                + [keys.pair(game, pid) for pid in pairs],
                args=args,
            )
            status = text(res[0])
            if status == "ok":
                return outcome
            if status == "dup":
                return RaceOutcome.from_json(json.loads(res[1]), applied=False)
        raise RatingError("busy", "the players' ratings kept changing; try again")

    async def history(self, game: str, player: str, limit: int = 50) -> list[dict[str, Any]]:
        """The player's latest rated races of the game, newest first (``entry`` JSON of record_race)."""
        raw = await self.redis.lrange(keys.history(game, player), 0, limit - 1)
        return [json.loads(x) for x in raw]

    async def leaderboard(
        self, game: str, top: int = 10, player: str | None = None, around: int = 2
    ) -> dict[str, Any]:
        """Top ``top`` and the ``around`` players either side of ``player``.

        Only established (non-provisional) ratings are on the board, ordered by
        ordinal; ranks are competition ranks (ties share one). ``me`` is None for
        a player not on the board.
        -> ``{"count", "top": [entry], "me": entry | None, "around": [entry]}``,
        entry = ``{"player", "name", "rank", "rating", "mu", "sigma", "races"}``.
        """
        count, top_rows, my_index, around_rows = await self._board(
            keys=[keys.board(game), keys.players(game)], args=[top, player or "", around]
        )

        def entry(row: Sequence[Any]) -> dict[str, Any]:
            rec = json.loads(row[1]) if row[1] else {"mu": NEW.mu, "sigma": NEW.sigma, "races": 0, "name": ""}
            r = _rating_of(rec)
            return {
                "player": text(row[0]),
                "name": rec.get("name", ""),
                "rank": int(row[2]),
                "rating": r.display,
                "mu": r.mu,
                "sigma": r.sigma,
                "races": r.races,
            }

        around_entries = [entry(row) for row in around_rows]
        me = next((e for e in around_entries if e["player"] == player), None) if int(my_index) >= 0 else None
        return {
            "count": int(count),
            "top": [entry(row) for row in top_rows],
            "me": me,
            "around": around_entries,
        }
