"""Daily challenges over Redis: the deal of the day, attempts, leaderboards, history.

``Daily`` is what the gateway calls. It knows nothing of sockets or of how a
race is run: starting an attempt takes a ``create_race`` callback (the race
server makes a private solo race with the daily seed), and the race server
reports the end of an attempt's race with ``record``.

Life of a day (``days.py``): it *opens* at midnight UTC; its commitment
``sha256(seed)`` is public from then on. Players start their one attempt
whenever they like; an attempt's race deadline never passes the close (its
time limit is cut to fit; in the last ``min_attempt_s`` no attempt starts), so
once the day *closes* nobody is still playing and the seed is revealed. After
``finalize_grace_ms`` more (for race ends still in flight) the day is
*finalized*: the board is frozen as a permanent record with its seed, and the
move logs of the top ``replay_top`` entries are published. Finalization is
lazy and idempotent: any call touching a closed day past the grace does it.

Every time comes from ``clock`` (ms), injectable for tests.
"""

from __future__ import annotations

import asyncio
import json
import secrets as _secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from protocol.messages import ErrorCode
from protocol.ranking import Result, pack
from protocol.rules import DEAL_VERSION, GAMES, RULES_VERSION

from . import keys, scripts
from .days import Clock, closes_at, date_of_day, day_number, day_of, opens_at, system_clock
from .fair import daily_seed, new_secret, seed_commitment
from .history import stats

WEEK_MS = 7 * 86_400_000


class DailyError(Exception):
    """A refused daily request; ``code`` is a stable protocol error code.

    ``unknown-game``, ``bad-date``, ``daily-not-open`` (a future day),
    ``daily-done`` (the attempt is over: a second one is refused; ``entry``),
    ``daily-closing`` (too little of the day is left to start), ``daily-open``
    (seed, replays and spectating wait for the close), ``no-replay`` (only the
    top entries' replays are published), ``not-attempt`` (the race is not this
    player's attempt), ``daily-final`` (the day is frozen), ``daily-busy``
    (another connection is still creating the attempt's race).
    """

    def __init__(self, code: str, message: str, **extra: Any):
        super().__init__(message)
        self.code = code
        self.message = message
        self.extra = extra


@dataclass(frozen=True, slots=True)
class DailyDeal:
    """The deal of one game on one day. ``seed`` is secret until ``closes``."""

    game: str
    date: str
    seed: str
    commitment: str
    opens: int
    closes: int
    total: int


@dataclass(frozen=True, slots=True)
class Attempt:
    """A player's attempt: its race, and whether it already existed (a resume)."""

    game: str
    date: str
    race: str
    resumed: bool


#: ``create_race(deal, player, time_limit_s)`` → race id. It must create a
#: *private* solo race for ``player`` with ``deal.seed`` whose deadline is at
#: most ``deal.closes``, and mark it as a daily race (its seed is not revealed
#: at its end while the day is open).
CreateRace = Callable[[DailyDeal, str, int], Awaitable[str]]


def _s(v: Any) -> str:
    return v.decode() if isinstance(v, bytes) else str(v)


def _dumps(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


class Daily:
    def __init__(
        self,
        redis: Any,
        *,
        clock: Clock = system_clock,
        secret: str | None = None,
        time_limit_s: int = 600,
        min_attempt_s: int = 30,
        start_lead_ms: int = 5_000,
        replay_top: int = 10,
        finalize_grace_ms: int = 60_000,
        keep_ms: int = WEEK_MS,
        pending_stale_ms: int = 15_000,
        busy_wait_ms: int = 10_000,
    ) -> None:
        """
        ``redis``: a ``redis.asyncio`` client (bytes or decoded responses).
        ``secret``: a configured server secret; None keeps one in Redis.
        ``time_limit_s``: the daily race clock. ``min_attempt_s``: no attempt
        starts with less time than this before the close. ``start_lead_ms``:
        room for the race's countdown when cutting the time limit to the close.
        ``replay_top``: entries whose replays are published after the close.
        ``keep_ms``: how long after the close the temporary keys (attempt
        claims, all move logs, race markers) live. ``pending_stale_ms``: a
        claim whose race was never created (its process died) is taken over
        after this. ``busy_wait_ms``: how long a racing second start waits for
        the first one's race.
        """
        if replay_top < 1:
            raise ValueError("replay_top must be at least 1")
        self.redis = redis
        self.clock = clock
        self._secret = secret
        self.time_limit_s = time_limit_s
        self.min_attempt_s = min_attempt_s
        self.start_lead_ms = start_lead_ms
        self.replay_top = replay_top
        self.finalize_grace_ms = finalize_grace_ms
        self.keep_ms = keep_ms
        self.pending_stale_ms = pending_stale_ms
        self.busy_wait_ms = busy_wait_ms
        self._claim = redis.register_script(scripts.CLAIM)
        self._bind = redis.register_script(scripts.BIND)
        self._record = redis.register_script(scripts.RECORD)
        self._board = redis.register_script(scripts.BOARD)
        self._entry = redis.register_script(scripts.ENTRY)
        self._finalize = redis.register_script(scripts.FINALIZE)
        self._meta_written: set[tuple[str, str]] = set()

    # -- the deal ------------------------------------------------------------

    async def secret(self) -> str:
        """The server secret: configured, or created once in Redis (SET NX)."""
        if self._secret is None:
            await self.redis.set(keys.SECRET, new_secret(), nx=True)
            value = await self.redis.get(keys.SECRET)
            self._secret = _s(value)
        return self._secret

    def today(self) -> str:
        return day_of(self.clock())

    def _check(self, game: str, date: str | None) -> str:
        if game not in GAMES:
            raise DailyError(ErrorCode.UNKNOWN_GAME, f"no such game {game!r}")
        now = self.clock()
        if date is None:
            return day_of(now)
        try:
            day = day_number(date)
        except ValueError:
            raise DailyError("bad-date", f"not a YYYY-MM-DD date: {date!r}") from None
        if day * 86_400_000 > now:
            raise DailyError(ErrorCode.DAILY_NOT_OPEN, f"the {date} challenge has not opened yet")
        return date

    async def deal(self, game: str, date: str | None = None) -> DailyDeal:
        """The deal (with its secret seed: server use only) of an opened day."""
        date = self._check(game, date)
        seed = daily_seed(await self.secret(), game, date)
        deal = DailyDeal(
            game, date, seed, seed_commitment(seed), opens_at(date), closes_at(date), GAMES[game].total
        )
        if (game, date) not in self._meta_written:
            # The public facts of the day, kept with its permanent record.
            await self.redis.hset(
                keys.meta(game, date),
                mapping={
                    "game": game,
                    "date": date,
                    "opens": deal.opens,
                    "closes": deal.closes,
                    "commitment": deal.commitment,
                    "total": deal.total,
                    "time_limit_s": self.time_limit_s,
                },
            )
            self._meta_written.add((game, date))
        return deal

    async def info(self, game: str, date: str | None = None) -> dict[str, Any]:
        """The public facts of a daily (the `daily` message): seed only once closed."""
        deal = await self.deal(game, date)
        now = self.clock()
        closed = now >= deal.closes
        final = await self._maybe_finalize(deal) if closed else False
        count = await self.redis.zcard(keys.board(game, deal.date))
        return {
            "game": game,
            "date": deal.date,
            "status": "closed" if closed else "open",
            "opens": deal.opens,
            "closes": deal.closes,
            "commitment": deal.commitment,
            "seed": deal.seed if closed else None,
            "time_limit_s": self.time_limit_s,
            "total": deal.total,
            "entries": int(count),
            "final": final,
            "rules_version": RULES_VERSION,
            "deal_version": DEAL_VERSION,
        }

    # -- attempts ------------------------------------------------------------

    async def attempt(self, game: str, player: str, date: str | None = None) -> str | None:
        """The race id of the player's attempt on that day, if any."""
        date = self._check(game, date)
        v = await self.redis.hget(keys.attempts(game, date), player)
        v = None if v is None else _s(v)
        return v[5:] if v and v.startswith("race:") else None

    async def start(self, game: str, player: str, create_race: CreateRace) -> Attempt:
        """Start (or resume) today's one ranked attempt of ``player`` at ``game``.

        Exactly one race is ever bound to a player's attempt, however many
        connections call this at once: one claims the attempt atomically and
        creates the race; the others wait for it and resume it. A finished
        attempt refuses a new one (``daily-done``).
        """
        deal = await self.deal(game)
        date = deal.date
        token = _secrets.token_hex(8)
        att, ent = keys.attempts(game, date), keys.entries(game, date)
        waited = 0
        while True:
            now = self.clock()
            res = [
                _s(x)
                for x in await self._claim(keys=[att, ent], args=[player, token, now, self.pending_stale_ms])
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
            limit = min(self.time_limit_s, (deal.closes - now - self.start_lead_ms) // 1000)
            if limit < self.min_attempt_s:
                raise DailyError(
                    ErrorCode.DAILY_CLOSING,
                    f"the {date} challenge closes too soon to start",
                    closes=deal.closes,
                )
            race = await create_race(deal, player, int(limit))
        except BaseException:
            await self._bind(keys=[att], args=[player, token, ""])
            raise
        # Mark the race as a daily before anyone can learn it exists.
        await self.redis.set(
            keys.race(race),
            f"{game}|{date}|{player}",
            px=max(1000, deal.closes + self.keep_ms - self.clock()),
        )
        res = [_s(x) for x in await self._bind(keys=[att], args=[player, token, race])]
        if res[0] == "ok":
            return Attempt(game, date, race, False)
        # Our claim went stale and another call took over: theirs is the
        # attempt; the race we made is an unranked orphan.
        await self.redis.delete(keys.race(race))
        return await self.start(game, player, create_race)

    async def race_daily(self, race: str) -> tuple[str, str, str] | None:
        """``(game, date, player)`` if ``race`` is a daily attempt, else None."""
        v = await self.redis.get(keys.race(race))
        if v is None:
            return None
        game, date, player = _s(v).split("|", 2)
        return game, date, player

    async def check_public(self, race: str) -> None:
        """Raise ``daily-open`` if ``race`` is a daily attempt of a day not yet
        closed: it may not be spectated, replayed, nor its seed revealed."""
        d = await self.race_daily(race)
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
    ) -> dict[str, Any] | None:
        """Record the end of an attempt's race; idempotent (several processes may
        report the same end). Returns the entry with its ``rank`` and the board's
        ``count``, or None if ``race`` is not the player's bound attempt (an
        orphan) or the day is already frozen."""
        now = self.clock()
        entry = {
            "player": player,
            "name": name,
            "race": race,
            **result.to_dict(),
            "starts_at": starts_at,
            "recorded": now,
        }
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
                _dumps(entry),
                pack(result),
                _dumps([[str(m), int(at)] for m, at in moves]),
                ttl,
            ],
        )
        status = _s(res[0])
        if status in ("not-attempt", "final"):
            return None
        # History lives in the player's slot; rewriting it is idempotent, so a
        # repeated record also repairs a history write lost to a crash.
        summary = {
            k: entry[k] for k in ("status", "won", "home", "total", "moves", "time_ms", "home_at_ms", "race")
        }
        await self.redis.hset(keys.history(player, game), date, _dumps(summary))
        if status == "dup":
            entry = await self.entry(game, date, player) or entry
        out = {**entry, "rank": int(res[1])}
        if status == "ok":
            await self.redis.publish(
                keys.channel(game, date),
                _dumps({"game": game, "date": date, "entry": out, "count": int(res[2])}),
            )
        return {**out, "count": int(res[2])}

    async def entry(self, game: str, date: str, player: str) -> dict[str, Any] | None:
        """A player's recorded entry with its current rank, or None."""
        raw, rank = await self._entry(keys=[keys.board(game, date), keys.entries(game, date)], args=[player])
        raw = _s(raw)
        if not raw:
            return None
        return {**json.loads(raw), "rank": int(rank) if int(rank) > 0 else None}

    async def leaderboard(
        self, game: str, date: str | None = None, player: str | None = None, top: int = 10, around: int = 3
    ) -> dict[str, Any]:
        """Top ``top`` entries, the ``around`` entries either side of ``player``
        and their own entry (``me``), from one consistent read."""
        deal = await self.deal(game, date)
        date = deal.date
        closed = self.clock() >= deal.closes
        final = await self._maybe_finalize(deal) if closed else False
        top = max(1, top)
        count, raw_top, pos, raw_around = await self._board(
            keys=[keys.board(game, date), keys.entries(game, date)],
            args=[top, player or "", max(0, around)],
        )

        def entries(raw: list[Any]) -> list[dict[str, Any]]:
            out = []
            for e, rank in raw:
                e = _s(e)
                if e:
                    out.append({**json.loads(e), "rank": int(rank)})
            return out

        near = entries(raw_around) if int(pos) >= 0 else []
        me = next((e for e in near if e["player"] == player), None)
        return {
            "game": game,
            "date": date,
            "status": "closed" if closed else "open",
            "final": final,
            "count": int(count),
            "top": entries(raw_top),
            "around": near,
            "me": me,
        }

    def channel(self, game: str, date: str) -> str:
        """The pub/sub channel of a day's live leaderboard updates (JSON)."""
        return keys.channel(game, date)

    async def history(self, player: str, game: str, recent: int = 30) -> dict[str, Any]:
        """Days played, wins, streaks, and the last ``recent`` days with final ranks."""
        if game not in GAMES:
            raise DailyError(ErrorCode.UNKNOWN_GAME, f"no such game {game!r}")
        raw = await self.redis.hgetall(keys.history(player, game))
        days = {_s(k): json.loads(_s(v)) for k, v in raw.items()}
        today = self.clock() // 86_400_000
        st = stats(((day_number(d), bool(e["won"])) for d, e in days.items()), today)
        last = sorted(days, reverse=True)[: max(0, recent)]

        # One small call per day, concurrently: each day lives in its own slot
        # (and redis-py refuses EVALSHA in cluster pipelines).
        async def rank_of(d: str) -> tuple[int, int]:
            _raw, rank = await self._entry(keys=[keys.board(game, d), keys.entries(game, d)], args=[player])
            return int(rank), int(await self.redis.zcard(keys.board(game, d)))

        ranks = await asyncio.gather(*(rank_of(d) for d in last))
        out = []
        for d, (rank, count) in zip(last, ranks):
            out.append({"date": d, **days[d], "rank": rank if rank > 0 else None, "count": count})
        return {"player": player, "game": game, "today": date_of_day(today), **st.to_dict(), "days": out}

    # -- after the close -------------------------------------------------------

    async def _maybe_finalize(self, deal: DailyDeal) -> bool:
        """Finalize a closed day past its grace; True if it is final."""
        if await self.redis.hexists(keys.meta(deal.game, deal.date), "finalized"):
            return True
        if self.clock() < deal.closes + self.finalize_grace_ms:
            return False
        await self.finalize(deal.game, deal.date)
        return True

    async def finalize(self, game: str, date: str) -> bool:
        """Freeze a closed day: keep its seed with the record, publish the top
        entries' replays. Idempotent; True if this call did it."""
        deal = await self.deal(game, date)
        if self.clock() < deal.closes:
            raise DailyError(ErrorCode.DAILY_OPEN, "the day is not over")
        g, d = game, deal.date
        done = await self._finalize(
            keys=[
                keys.meta(g, d),
                keys.board(g, d),
                keys.moves(g, d),
                keys.replays(g, d),
                keys.attempts(g, d),
            ],
            args=[
                self.replay_top,
                deal.seed,
                self.clock(),
                max(1000, deal.closes + self.keep_ms - self.clock()),
            ],
        )
        return bool(int(done))

    async def replay(self, game: str, date: str, player: str | None = None) -> dict[str, Any]:
        """The published replays of a closed, finalized day — one player's, or all
        of the top entries — in the format ``solrace verify`` reads."""
        deal = await self.deal(game, date)
        if self.clock() < deal.closes or not await self._maybe_finalize(deal):
            raise DailyError(
                ErrorCode.DAILY_OPEN,
                "replays are published once the day is closed and final",
                closes=deal.closes,
            )
        rk = keys.replays(game, deal.date)
        if player is None:
            raw = await self.redis.hgetall(rk)
            logs = {_s(k): _s(v) for k, v in raw.items()}
        else:
            v = await self.redis.hget(rk, player)
            if v is None:
                raise DailyError(
                    ErrorCode.NO_REPLAY, "only the top entries' replays are published", top=self.replay_top
                )
            logs = {player: _s(v)}
        ranking, players = [], []
        for p, log in logs.items():
            e = await self.entry(game, deal.date, p)
            if e is None:  # cannot happen: replays come from board entries
                continue
            ranking.append(
                {
                    k: e[k]
                    for k in (
                        "rank",
                        "player",
                        "name",
                        "status",
                        "won",
                        "home",
                        "moves",
                        "time_ms",
                        "home_at_ms",
                    )
                }
            )
            players.append(
                {
                    "player": p,
                    "name": e["name"],
                    "starts_at": e.get("starts_at"),
                    "race": e.get("race"),
                    "moves": json.loads(log),
                }
            )
        ranking.sort(key=lambda e: (e["rank"], e["player"]))
        order = {e["player"]: i for i, e in enumerate(ranking)}
        players.sort(key=lambda p: order[p["player"]])
        return {
            "game": game,
            "date": deal.date,
            "rules_version": RULES_VERSION,
            "deal_version": DEAL_VERSION,
            "seed": deal.seed,
            "commitment": deal.commitment,
            "total": deal.total,
            "ranking": ranking,
            "players": players,
        }
