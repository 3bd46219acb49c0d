"""The typed requests of daily challenges (docs/protocol.md §5): one method each.

An attempt (`daily_start`) is a race of one seat: its `race` snapshot comes back here
and it is played with the race methods (`move`, `finish`, `resync`). Live leaderboards
(`leaderboard(..., watch=True)`) arrive as `leaderboard_update` events:
`wait_for(messages.LeaderboardUpdate, ...)`.
"""

from __future__ import annotations

from protocol import messages as m

from .arena import ArenaCalls


class DailyCalls(ArenaCalls):
    """Daily challenges: the day's facts, the attempt, the leaderboard, the history."""

    async def daily(self, game: str, date: str | None = None) -> m.DailyInfo:
        """A day's daily of `game` (default today, UTC): its facts and your attempt (`you`)."""
        info: m.DailyInfo = await self.request(m.Daily(game=game, date=date))
        return info

    async def daily_start(self, game: str) -> m.RaceSnapshot:
        """Start today's one ranked attempt of `game`, or resume it: the attempt's race.

        A resumed attempt may already be running (its clock never stops): `resync` it
        for your board. `ServerError` `daily-done` once it is over, `daily-closing` in
        the day's last 35 s, `daily-busy` while another connection creates it (retry).
        """
        snap: m.RaceSnapshot = await self.request(m.DailyStart(game=game))
        return snap

    async def leaderboard(
        self,
        game: str,
        date: str | None = None,
        top: int | None = None,
        around: int | None = None,
        watch: bool = False,
    ) -> m.LeaderboardData:
        """A day's board: the first `top` entries, `around` either side of yours, yours (`me`)."""
        board: m.LeaderboardData = await self.request(
            m.Leaderboard(game=game, date=date, top=top, around=around, watch=watch or None)
        )
        return board

    async def leaderboard_unwatch(self, game: str, date: str | None = None) -> m.Ok:
        ok: m.Ok = await self.request(m.LeaderboardUnwatch(game=game, date=date))
        return ok

    async def history(self, game: str, player: str | None = None, days: int | None = None) -> m.HistoryData:
        """A player's daily record of `game` (default yours): streaks and the last `days` attempts."""
        data: m.HistoryData = await self.request(m.History(game=game, player=player, days=days))
        return data
