"""A daily start that runs across midnight UTC (server/daily/service.py `Daily.start`): the deal
is read first, the claim later. The claim's clock reading decides both the day and the cut to
its close: a start whose deal was yesterday's and whose claim came after midnight was refused
("the <yesterday> challenge closes too soon to start") while today's was open."""

from __future__ import annotations

from typing import Any

from server.daily import Daily, DailyDeal, days

GAME = "racing-aces"
DAY = "2025-03-14"
MIDNIGHT = days.closes_at(DAY)


class MidnightDuringDeal(Daily):
    """A Daily whose clock reads `before` until its first deal is read, then `after`: the
    instant of a start that midnight (or a slow Redis) overtakes between its two steps."""

    def __init__(self, redis: Any, before: int, after: int) -> None:
        self.now = before
        self.after = after
        super().__init__(redis, clock=lambda: self.now)

    async def deal(self, *args: Any, **kw: Any) -> DailyDeal:
        deal = await super().deal(*args, **kw)
        self.now = self.after
        return deal


async def make(deal: DailyDeal, player: str, time_limit_s: int) -> str:
    return f"{deal.date}/{player}/{time_limit_s}"


async def test_a_start_whose_claim_comes_after_midnight_plays_the_new_day(r):
    daily = MidnightDuringDeal(r, MIDNIGHT - 1, MIDNIGHT + 2)
    att = await daily.start(GAME, "ada", make)
    assert (att.date, att.race, att.resumed) == ("2025-03-15", "2025-03-15/ada/600", False)
    assert await daily.attempt(GAME, "ada", DAY) is None


async def test_a_start_whose_claim_is_still_in_time_plays_the_old_day(r):
    # The deal read a minute before midnight, the claim 20 s later: yesterday's, cut to the
    # 40 s its claim's reading leaves (less the 5 s countdown).
    daily = MidnightDuringDeal(r, MIDNIGHT - 60_000, MIDNIGHT - 40_000)
    att = await daily.start(GAME, "ada", make)
    assert (att.date, att.race) == (DAY, f"{DAY}/ada/35")
