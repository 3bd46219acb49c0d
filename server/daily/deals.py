"""Daily challenges over Redis, part 1: the shared types and the deal of the day.

The ``Daily`` of service.py is what the gateway calls; it is built in three
layers, one per file: ``DailyDeals`` (here: configuration, the secret, the
deal and its public info), ``DailyBoards`` (boards.py: entries, leaderboards,
history, finalization and replays) and ``Daily`` (service.py: attempts and
recording their results).

``Daily`` It knows nothing of sockets or of how a
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

History window: a day is served (``daily``, ``leaderboard``, ``daily_replay``)
from its opening until ``history_days`` (``DAILY_HISTORY_DAYS``) days later:
today and the 400 days before it, by default. An older day is refused with
``bad-date`` and nothing is written for it, unless it already has its record
(its ``meta``, written when it was first dealt within the window): a day's
permanent record stays readable for good. Without this floor any past date
(back to 0001-01-01) would deal and finalize a day, writing permanent keys.

Every time comes from ``clock`` (ms), injectable for tests.

Certified dailies: for a game of ``certified_games`` the day deals the first
of the candidate seeds ``daily_candidate(secret, game, date, k)``, k = 0, 1,
2, … (k = 0 is the ordinary daily seed, ``HMAC(secret, "G|D")``; k ≥ 1 is
``HMAC(secret, "G|D|k")``) that the solver proves winnable. The solver worker
(server/certify) searches them ahead of the day and stores the result
(``certified``); the day's first deal pins its choice (``pick``, SET NX), so
the seed, and the commitment published from the open, never change during the
day. If no candidate was certified in time, the day deals k = 0, uncertified.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from protocol.messages import ErrorCode
from protocol.rules import GAMES

from . import keys, scripts
from .days import DAY_MS, Clock, closes_at, date_of_day, day_number, day_of, opens_at, system_clock
from .fair import daily_message, daily_seed, new_secret, seed_commitment

WEEK_MS = 7 * 86_400_000
#: Days before today that are still served: today and the ``DAILY_HISTORY_DAYS``
#: days before it (module doc, History window). Older days are ``bad-date``,
#: but for a day already recorded.
DAILY_HISTORY_DAYS = 400
#: Most (game, date) pairs each per-process cache of the deal keeps (least
#: recently used out first); a day evicted is only read or written again.
CACHED_DAYS = 64

_K = TypeVar("_K")
_V = TypeVar("_V")


def _remember(cache: OrderedDict[_K, _V], key: _K, value: _V) -> None:
    """Put ``key`` in a least-recently-used ``cache`` of at most ``CACHED_DAYS`` items."""
    cache[key] = value
    cache.move_to_end(key)
    while len(cache) > CACHED_DAYS:
        cache.popitem(last=False)


class DailyError(Exception):
    """A refused daily request; ``code`` is a stable protocol error code.

    ``unknown-game``, ``bad-date`` (malformed, or older than the history window
    and never recorded), ``daily-not-open`` (a future day),
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
    certified: bool = False  # proved winnable; ``proof`` is the solver's winning line
    proof: tuple[str, ...] = ()


def daily_candidate(secret: str, game: str, date: str, k: int) -> str:
    """The k-th candidate seed of a certified daily: k = 0 is the ordinary
    daily seed, k >= 1 is HMAC-SHA256(secret, f"{game}|{date}|{k}") in hex."""
    if k == 0:
        return daily_seed(secret, game, date)
    message = daily_message(game, date) + f"|{k}".encode()
    return hmac.new(secret.encode("utf-8"), message, hashlib.sha256).hexdigest()


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
#: at its end while the day is open). The race must wait, not counting down,
#: until its caller starts it: only the race bound to the attempt is ever
#: played (`Daily.start`).
CreateRace = Callable[[DailyDeal, str, int], Awaitable[str]]
#: ``discard_race(race)``: take the player out of a race made for an attempt
#: that did not become it (an orphan), so that it never runs: a second copy
#: of the day's deal would let the player learn it before the attempt.
DiscardRace = Callable[[str], Awaitable[None]]


def as_text(v: Any) -> str:
    return v.decode() if isinstance(v, bytes) else str(v)


def compact_json(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


class DailyDeals:
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
        race_mark_ms: int = 0,
        pending_stale_ms: int = 15_000,
        busy_wait_ms: int = 10_000,
        certified_games: frozenset[str] = frozenset(),
        history_days: int = DAILY_HISTORY_DAYS,
    ) -> None:
        """
        ``redis``: a ``redis.asyncio`` client (bytes or decoded responses).
        ``secret``: a configured server secret; None keeps one in Redis.
        ``time_limit_s``: the daily race clock. ``min_attempt_s``: no attempt
        starts with less time than this before the close. ``start_lead_ms``:
        room for the race's countdown when cutting the time limit to the close.
        ``replay_top``: entries whose replays are published after the close.
        ``keep_ms``: how long after the close the temporary keys (attempt
        claims, all move logs, race markers) live. ``race_mark_ms``: a race
        marker lives at least this long after the close (as long as the race's
        own record: without its mark an attempt's race is refused to everyone,
        its replay too). ``pending_stale_ms``: a
        claim whose race was never created (its process died) is taken over
        after this. ``busy_wait_ms``: how long a racing second start waits for
        the first one's race. ``certified_games``: games whose dailies deal a
        certified candidate when one was found in time (module doc).
        ``history_days``: how many days before today are served (module doc,
        History window).
        """
        if replay_top < 1:
            raise ValueError("replay_top must be at least 1")
        if history_days < 1:
            raise ValueError("history_days must be at least 1")
        self.redis = redis
        self.clock = clock
        self._secret = secret
        self.time_limit_s = time_limit_s
        self.min_attempt_s = min_attempt_s
        self.start_lead_ms = start_lead_ms
        self.replay_top = replay_top
        self.finalize_grace_ms = finalize_grace_ms
        #: Run before a closed day is finalized (game, date): the race side records any
        #: finished attempt whose end was not (a record refused once the day is final).
        self.before_finalize: Callable[[str, str], Awaitable[None]] | None = None
        self.keep_ms = keep_ms
        self.race_mark_ms = max(keep_ms, race_mark_ms)
        self.pending_stale_ms = pending_stale_ms
        self.busy_wait_ms = busy_wait_ms
        self._claim = redis.register_script(scripts.CLAIM)
        self._bind = redis.register_script(scripts.BIND)
        self._record = redis.register_script(scripts.RECORD)
        self._board = redis.register_script(scripts.BOARD)
        self._entry = redis.register_script(scripts.ENTRY)
        self._finalize = redis.register_script(scripts.FINALIZE)
        self.history_days = history_days
        # Bounded (CACHED_DAYS, least recently used out): days already dealt here.
        self._meta_written: OrderedDict[tuple[str, str], None] = OrderedDict()
        self.certified_games = certified_games
        self._picks: OrderedDict[tuple[str, str], tuple[int, tuple[str, ...] | None]] = OrderedDict()

    # -- the deal ------------------------------------------------------------

    async def secret(self) -> str:
        """The server secret: configured, or created once in Redis (SET NX)."""
        if self._secret is None:
            await self.redis.set(keys.SECRET, new_secret(), nx=True)
            value = await self.redis.get(keys.SECRET)
            self._secret = as_text(value)
        return self._secret

    def today(self) -> str:
        return day_of(self.clock())

    async def checked_date(self, game: str, date: str | None, now: int | None = None) -> str:
        """The date a request names (None: today), once checked: a known game, a
        well-formed date, a day opened and within the history window (or recorded).
        Writes nothing; raises ``DailyError`` (unknown-game, bad-date, daily-not-open).
        ``now``: the clock reading the caller's other checks use (None: read it here)."""
        if game not in GAMES:
            raise DailyError(ErrorCode.UNKNOWN_GAME, f"no such game {game!r}")
        if now is None:
            now = self.clock()
        if date is None:
            return day_of(now)
        try:
            day = day_number(date)
        except ValueError:
            raise DailyError("bad-date", f"not a YYYY-MM-DD date: {date!r}") from None
        if day * DAY_MS > now:
            raise DailyError(ErrorCode.DAILY_NOT_OPEN, f"the {date} challenge has not opened yet")
        first = now // DAY_MS - self.history_days
        if day < first and not await self.redis.exists(keys.meta(game, date)):
            raise DailyError(
                "bad-date",
                f"the {date} challenge is older than the {self.history_days} days kept: "
                f"the first day served is {date_of_day(first)}",
            )
        return date

    async def _pick(self, game: str, date: str) -> tuple[int, tuple[str, ...] | None]:
        """The candidate (k, winning line or None) the day deals; pinned at the first call."""
        if game not in self.certified_games:
            return 0, None
        known = self._picks.get((game, date))
        if known is not None:
            self._picks.move_to_end((game, date))
            return known
        found = await self.redis.get(keys.certified(game, date))
        choice = as_text(found) if found is not None else compact_json({"k": 0, "line": None})
        await self.redis.set(keys.pick(game, date), choice, nx=True)  # permanent, like the day's meta
        doc = json.loads(as_text(await self.redis.get(keys.pick(game, date))))
        line = doc["line"]
        picked = (int(doc["k"]), tuple(line) if line is not None else None)
        _remember(self._picks, (game, date), picked)
        return picked

    # -- for the solver worker (server/certify): certified candidates ahead of the day

    async def candidates(self, game: str, date: str, start: int, count: int) -> list[str]:
        secret = await self.secret()
        return [daily_candidate(secret, game, date, k) for k in range(start, start + count)]

    async def certified_known(self, game: str, date: str) -> bool:
        """Whether the day's choice is made: a certified candidate stored, or the day pinned."""
        return bool(await self.redis.exists(keys.certified(game, date), keys.pick(game, date)))

    async def store_certified(self, game: str, date: str, k: int, line: list[str]) -> None:
        ttl_ms = max(1, closes_at(date) - self.clock() + self.keep_ms)
        await self.redis.set(keys.certified(game, date), compact_json({"k": k, "line": line}), px=ttl_ms)

    async def deal(self, game: str, date: str | None = None, now: int | None = None) -> DailyDeal:
        """The deal (with its secret seed: server use only) of an opened day; ``now`` as
        for ``checked_date``."""
        date = await self.checked_date(game, date, now)
        k, proof = await self._pick(game, date)
        seed = daily_candidate(await self.secret(), game, date, k)
        deal = DailyDeal(
            game,
            date,
            seed,
            seed_commitment(seed),
            opens_at(date),
            closes_at(date),
            GAMES[game].total,
            certified=proof is not None,
            proof=proof or (),
        )
        if (game, date) in self._meta_written:
            self._meta_written.move_to_end((game, date))
        else:
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
            _remember(self._meta_written, (game, date), None)
        return deal
