"""Daily challenges over Redis, part 3: attempts, and recording their results.

``Daily`` is what the gateway calls (server/daily/handlers.py). See deals.py
for the life of a day.
"""

from __future__ import annotations

import asyncio
import logging
import secrets as _secrets
from typing import Any

from protocol.messages import ErrorCode
from protocol.ranking import Result, pack

from ..retries import retried, tried
from . import keys
from .boards import DailyBoards
from .days import closes_at, day_of
from .deals import Attempt, CreateRace, DailyDeal, DailyError, DiscardRace, as_text, compact_json

log = logging.getLogger("solrace.daily")

# Tries at binding an attempt's race to its claim (`Daily._bind_race`).
BIND_ATTEMPTS = 4

__all__ = ["Attempt", "CreateRace", "Daily", "DailyDeal", "DailyError", "DiscardRace"]


def _bound_race(claim: str | bytes) -> str | None:
    """The race id of an attempt's claim (``race:ID``), None while it is pending."""
    text = as_text(claim)
    return text[5:] if text.startswith("race:") else None


class Daily(DailyBoards):
    # -- attempts ------------------------------------------------------------

    async def attempt(self, game: str, player: str, date: str | None = None) -> str | None:
        """The race id of the player's attempt on that day, if any."""
        date = await self.checked_date(game, date)
        v = await self.redis.hget(keys.attempts(game, date), player)
        return None if v is None else _bound_race(v)

    async def attempts_of(self, game: str, date: str) -> dict[str, str]:
        """player -> race id of every attempt on that day (claims not bound to a race yet left out)."""
        raw = await self.redis.hgetall(keys.attempts(game, date))
        races = ((as_text(p), _bound_race(v)) for p, v in raw.items())
        return {p: race for p, race in races if race is not None}

    async def start(
        self, game: str, player: str, create_race: CreateRace, discard_race: DiscardRace | None = None
    ) -> Attempt:
        """Start (or resume) today's one ranked attempt of ``player`` at ``game``.

        Exactly one race is ever bound to a player's attempt, however many
        connections call this at once: one claims the attempt atomically and
        creates the race; the others wait for it and resume it. A finished
        attempt refuses a new one (``daily-done``). A race created for a claim
        that did not end bound (its mark failed, or it went stale and another
        call made the attempt) is an orphan, handed to ``discard_race``: it
        was made waiting, and is never started (``CreateRace``).
        """
        deal = await self.deal(game)
        date = deal.date
        token = _secrets.token_hex(8)
        att, ent = keys.attempts(game, date), keys.entries(game, date)
        waited = 0
        while True:
            now = self.clock()
            if day_of(now) != date:
                # Midnight passed since the deal was read: the claim's reading decides the day
                # as it decides the clock's cut to the close. Yesterday's deal, cut with a time
                # past its close, was refused as "closing" while today's was open.
                deal = await self.deal(game, now=now)
                date = deal.date
                att, ent = keys.attempts(game, date), keys.entries(game, date)
            res = [
                as_text(x)
                for x in await self._claim(
                    keys=[att, ent],
                    args=[
                        player,
                        token,
                        now,
                        self.pending_stale_ms,
                        max(1000, deal.closes + self.keep_ms - now),
                    ],
                )
            ]
            if res[0] == "done":
                raise DailyError(
                    ErrorCode.DAILY_DONE,
                    "today's attempt is already played",
                    entry=await self.entry(game, date, player),
                )
            if res[0] == "race":
                return Attempt(game, date, res[1], True)
            if res[0] == "claimed":
                break
            if waited >= self.busy_wait_ms:
                raise DailyError(ErrorCode.DAILY_BUSY, "the attempt is being created; try again")
            await asyncio.sleep(0.02)
            waited += 20
        # We hold the claim: cut the clock to the close, create, bind.
        try:
            race = await create_race(deal, player, self.attempt_limit(date, self.time_limit_s, now))
        except BaseException:
            await self._bind(keys=[att], args=[player, token, ""])
            raise
        # Mark the race as a daily before anyone can learn it exists. Should that fail, the
        # race is sealed with no mark: nobody may ever see it (`check_public`).
        try:
            await self.redis.set(
                keys.race(race),
                f"{game}|{date}|{player}",
                px=max(1000, deal.closes + self.race_mark_ms - self.clock()),
            )
        except BaseException:
            try:
                await self._bind(keys=[att], args=[player, token, ""])
            finally:  # a claim not given back goes stale; a race not discarded holds a seat
                await self._discard(discard_race, race)
            raise
        try:
            bound = await self._bind_race(att, player, token, race)
        except Exception:
            if await self._unbind(att, player, token, race, discard_race):
                return Attempt(game, date, race, False)
            raise
        if bound:
            return Attempt(game, date, race, False)
        # Our claim went stale and another call took over: theirs is the attempt; the race
        # we made is an orphan. It keeps its mark, so it stays hidden with its seed until the
        # close like any attempt, its result is not recorded (`record` takes only the
        # attempt's bound race), and it is discarded before it ever runs.
        await self._discard(discard_race, race)
        return await self.start(game, player, create_race, discard_race)

    async def _bind_race(self, att: str, player: str, token: str, race: str) -> bool:
        """Bind ``race`` to the claim of ``token``: True if it is the attempt (bound here, or
        by an earlier try whose reply was lost), False if the claim was lost to another call.
        A failed try is tried again (BIND_ATTEMPTS in all): a race made and marked but never
        bound is an orphan nobody discards, sealed in its lobby with the player's seat (which
        they cannot leave) until it expires, and their next start waits for a stale claim.
        The last try's failure is raised: whether it bound the race cannot be told (``start``
        then asks ``_unbind``)."""

        async def bind() -> bool:
            res = [as_text(x) for x in await self._bind(keys=[att], args=[player, token, race])]
            return res[0] == "ok" or res == ["lost", f"race:{race}"]

        return await tried(bind, attempts=BIND_ATTEMPTS)

    async def _unbind(
        self, att: str, player: str, token: str, race: str, discard_race: DiscardRace | None
    ) -> bool:
        """Every try of ``_bind_race`` failed: whether ``race`` is the attempt after all (a try
        whose reply was lost bound it): True. Else the claim is given back, if still ours,
        and the race discarded, so that the player's next start makes their attempt at once
        (left pending, the claim made it wait until stale, and the race, sealed in its lobby
        with the player's seat, was an orphan nobody discarded). Tried BIND_ATTEMPTS times;
        if none answers, the race is left as it is (it may be the attempt) and the claim
        goes stale: the player's next start resumes the race if it was bound, else makes
        another attempt and discards this race (the handlers' ``_discard_orphans``)."""

        async def unbind() -> list[str]:
            return [as_text(x) for x in await self._bind(keys=[att], args=[player, token, ""])]

        res = await retried(
            unbind,
            f"daily: whether race {race} is {player}'s attempt cannot be told (Redis failing); "
            "their next start resumes or discards it",
            log,
            attempts=BIND_ATTEMPTS,
        )
        if res is None:
            return False
        if res == ["lost", f"race:{race}"]:
            return True  # bound by a try whose reply was lost
        await self._discard(discard_race, race)  # given back, or another call's attempt
        return False

    def attempt_limit(self, date: str, limit_s: int, now: int) -> int:
        """The clock (s) of an attempt of ``date`` counted down from ``now``: ``limit_s``,
        cut so that its deadline (``start_lead_ms`` for the countdown, then the clock) is at
        most the day's close. Raises ``daily-closing`` when that leaves less than
        ``min_attempt_s``. Applied when the race is made, and again when it is counted
        down: a start that stopped in between is resumed later, maybe near the close."""
        closes = closes_at(date)
        limit = min(limit_s, (closes - now - self.start_lead_ms) // 1000)
        if limit < self.min_attempt_s:
            raise DailyError(
                ErrorCode.DAILY_CLOSING, f"the {date} challenge closes too soon to start", closes=closes
            )
        return int(limit)

    async def _discard(self, discard_race: DiscardRace | None, race: str) -> None:
        """Discard an orphan, or say why it could not be: it then waits, never started,
        until its lobby expires (a sealed race cannot be readied by its player)."""
        if discard_race is None:
            return
        try:
            await discard_race(race)
        except Exception as exc:
            log.warning("daily: orphan race %s not discarded (%s); it expires unstarted", race, exc)

    async def race_daily(self, race: str) -> tuple[str, str, str] | None:
        """``(game, date, player)`` if ``race`` is a daily attempt, else None."""
        v = await self.redis.get(keys.race(race))
        if v is None:
            return None
        game, date, player = as_text(v).split("|", 2)
        return game, date, player

    async def check_public(self, race: str, sealed: bool = False) -> None:
        """Raise ``daily-open`` if ``race`` is a daily attempt of a day not yet
        closed: it may not be spectated, replayed, nor its seed revealed.

        A ``sealed`` race (made for a daily attempt) with no mark is refused for good
        (``private-race``): its mark's write failed, so its day is unknown. (A mark
        outlives its race's record: it is kept `race_mark_ms` past the close.)"""
        d = await self.race_daily(race)
        if d is None and sealed:
            raise DailyError(ErrorCode.PRIVATE_RACE, "this race is private")
        if d is not None and self.clock() < closes_at(d[1]):
            raise DailyError(
                ErrorCode.DAILY_OPEN, "daily boards stay secret until the day closes", closes=closes_at(d[1])
            )

    # -- results -------------------------------------------------------------

    async def record(
        self,
        game: str,
        date: str,
        player: str,
        name: str,
        race: str,
        result: Result,
        moves: list[tuple[str, int]] | list[list[Any]],
        starts_at: int | None,
        *,
        account: bool = False,
        ended_ms: int | None = None,
    ) -> dict[str, Any] | None:
        """Record the end of an attempt's race; idempotent (several processes may
        report the same end). Returns the entry with its ``rank`` and the board's
        ``count``, or None if ``race`` is not the player's bound attempt (an
        orphan) or the day is already frozen. ``account``: the player is an account
        (the entry, and so its live update, says so; reads mark accounts afresh anyway).
        ``ended_ms``: start → the end of the attempt's game (a timeout's deadline), for the
        day's replays."""
        now = self.clock()
        entry = {
            "player": player,
            "name": name,
            "race": race,
            **result.to_dict(),
            "starts_at": starts_at,
            "recorded": now,
        }
        if ended_ms is not None:
            entry["ended_ms"] = ended_ms
        if account:
            entry["account"] = True
        ttl = max(1000, closes_at(date) + self.keep_ms - now)
        res = await self._record(
            keys=[
                keys.attempts(game, date),
                keys.entries(game, date),
                keys.board(game, date),
                keys.moves(game, date),
                keys.meta(game, date),
            ],
            args=[
                player,
                race,
                compact_json(entry),
                pack(result),
                compact_json([[str(m), int(at)] for m, at in moves]),
                ttl,
            ],
        )
        status = as_text(res[0])
        if status in ("not-attempt", "final"):
            return None
        # History lives in the player's slot; rewriting it is idempotent, so a
        # repeated record also repairs a history write lost to a crash.
        summary = {
            k: entry.get(k)
            for k in (
                "status",
                "won",
                "home",
                "total",
                "moves",
                "time_ms",
                "home_at_ms",
                "last_move_ms",
                "race",
            )
        }
        await self.redis.hset(keys.history(player, game), date, compact_json(summary))
        if status == "dup":
            entry = await self.entry(game, date, player) or entry
        out = {**entry, "rank": int(res[1])}
        if status == "ok":
            await self.redis.publish(
                keys.channel(game, date),
                compact_json({"game": game, "date": date, "entry": out, "count": int(res[2])}),
            )
        return {**out, "count": int(res[2])}
