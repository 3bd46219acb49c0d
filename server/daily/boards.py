"""Daily challenges over Redis, part 2: a day's info, entries, leaderboards, history, finalization, replays."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from protocol.messages import ErrorCode
from protocol.rules import DEAL_VERSION, GAMES, RULES_VERSION

from . import keys
from .days import closes_at, date_of_day, day_number
from .deals import DailyDeal, DailyDeals, DailyError, as_text
from .history import stats

NOBODY_PLAYED = "nobody played this day: it has no replay"


class DailyBoards(DailyDeals):
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
            "certified": deal.certified,
            "proof": list(deal.proof) if closed and deal.certified else None,
            "time_limit_s": self.time_limit_s,
            "total": deal.total,
            "entries": int(count),
            "final": final,
            "rules_version": RULES_VERSION,
            "deal_version": DEAL_VERSION,
        }

    async def entry(self, game: str, date: str, player: str) -> dict[str, Any] | None:
        """A player's recorded entry with its current rank, or None."""
        raw, rank = await self._entry(keys=[keys.board(game, date), keys.entries(game, date)], args=[player])
        raw = as_text(raw)
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
                e = as_text(e)
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
        days = {as_text(k): json.loads(as_text(v)) for k, v in raw.items()}
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
        if self.before_finalize is not None:
            await self.before_finalize(deal.game, deal.date)  # raising: not final yet, asked again
        await self.finalize(deal.game, deal.date)
        return True

    async def finalize_closed(self, days: int) -> list[tuple[str, str]]:
        """Finalize each day of the last `days` closed ones that has a record (someone asked
        for its deal) and is past its grace but not final: finalizing is otherwise done by
        the first request about the closed day, and a day nobody asks about would keep its
        attempts forever and lose its replays when its moves expire (a week after the
        close). Idempotent; returns the (game, date) this call made final."""
        today = self.clock() // 86_400_000
        done: list[tuple[str, str]] = []
        for back in range(1, days + 1):
            date = date_of_day(today - back)
            for game in GAMES:
                meta = keys.meta(game, date)
                if not await self.redis.exists(meta) or await self.redis.hexists(meta, "finalized"):
                    continue
                if await self._maybe_finalize(await self.deal(game, date)):
                    done.append((game, date))
        return done

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
        of the top entries — in the format ``solrace verify`` reads.

        A refusal writes nothing: the checks that need no deal come first, since dealing
        a day pins its choice of deal and writes its permanent record."""
        date = await self.checked_date(game, date)
        if self.clock() < closes_at(date):
            raise DailyError(
                ErrorCode.DAILY_OPEN,
                "replays are published once the day is closed and final",
                closes=closes_at(date),
            )
        if not await self.redis.exists(keys.meta(game, date)):
            # Never dealt (nobody looked at that day): nobody played it, nothing to replay.
            raise DailyError(ErrorCode.NO_REPLAY, NOBODY_PLAYED, top=self.replay_top)
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
            logs = {as_text(k): as_text(v) for k, v in raw.items()}
            if not logs:  # an empty document would "verify" as confirmed: there is nothing to check
                played = await self.redis.zcard(keys.board(game, deal.date))
                raise DailyError(
                    ErrorCode.NO_REPLAY,
                    NOBODY_PLAYED if not played else "only the top entries' replays are published",
                    top=self.replay_top,
                )
        else:
            v = await self.redis.hget(rk, player)
            if v is None:
                raise DailyError(
                    ErrorCode.NO_REPLAY, "only the top entries' replays are published", top=self.replay_top
                )
            logs = {player: as_text(v)}
        ranking, players = [], []
        for p, log in logs.items():
            e = await self.entry(game, deal.date, p)
            if e is None:  # cannot happen: replays come from board entries
                continue
            ranking.append(
                {
                    k: e.get(k)
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
                        "last_move_ms",
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
                    "ended_ms": e.get("ended_ms"),
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
