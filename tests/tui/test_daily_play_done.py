"""The daily screen's Play button says what it does for the highlighted game, from that game's
`daily` reply (docs/protocol.md §5: `you` is absent before an attempt, ``playing`` during
it, ``done`` with its entry after): play today's deal, resume the attempt, or, the day's one
attempt over, show its leaderboard. It read "Play today's deal (one ranked attempt)" after
the attempt too, though pressing it then only said the attempt was over."""

from __future__ import annotations

import asyncio
from typing import Any

from textual.app import App
from textual.widgets import Button, DataTable

from client.tui.daily_screen import DailyScreen

from .helpers import rendered, until
from .test_daily_ratings_text import DAY, daily, entry

MINE = entry(2, "p1", "ada", won=True)
#: Each game's `you`: none, under way, over.
YOU: dict[str, dict[str, Any] | None] = {
    "racing-aces": None,
    "double-aces-and-kings": {"race": "r1", "status": "playing", "entry": None},
    "rouge-et-noir": {"race": "r2", "status": "done", "entry": MINE},
    "fours-up": None,
}


class Player:
    player, name, logged_in = "p1", "ada", False
    events: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

    def server_now(self) -> int:
        return DAY // 2

    async def request(self, t: str, **fields: Any) -> dict[str, Any]:
        game = fields["game"]
        if t == "daily":
            return daily(YOU[game], game=game)
        if t == "history":
            return {"t": "history", "streak": 1, "best_streak": 1}
        assert t == "leaderboard"
        return {"t": "leaderboard", "game": game, "date": "2025-03-14", "status": "open", "final": False,
                "count": 41, "top": [MINE], "around": [], "me": MINE}  # fmt: skip


def screen_lines(app: App[None]) -> list[str]:
    return ["".join(seg.text for seg in strip) for strip in app.screen._compositor.render_strips()]


async def test_play_says_todays_attempt_is_done_once_it_is() -> None:
    app: App[None] = App()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = DailyScreen(Player(), "racing-aces")  # type: ignore[arg-type]
        app.push_screen(screen)
        await until(pilot, lambda: len(screen.infos) == len(YOU), what="every game's daily")
        table = screen.query_one("#daily-games", DataTable)
        play = screen.query_one("#daily-play", Button)

        async def label_on(game: str, label: str) -> None:
            table.move_cursor(row=list(YOU).index(game))
            await until(
                pilot,
                lambda: screen.selected() == game and str(play.label) == label,
                what=f"Play on {game} saying {label!r}",
            )

        await label_on("racing-aces", "Play today's deal (one ranked attempt)")
        await label_on("double-aces-and-kings", "Resume today's attempt")
        done = "Today's attempt done: its leaderboard"
        await label_on("rouge-et-noir", done)
        # whole on the screen at 80 columns, on one row
        await until(pilot, lambda: any(done in line for line in screen_lines(app)), what="the label drawn")
        # and the keys line under it no longer says Play starts the deal
        keys = rendered(screen.query_one("#daily-keys"))
        assert "Enter or Play: its leaderboard" in keys and "ranked attempt of" not in keys, keys

        # and it does what it says: the day's board, your place on it; no attempt started
        await pilot.click("#daily-play")
        board = screen.query_one("#daily-board-text")
        await until(pilot, lambda: "your place: #2 of 41" in rendered(board), what="the leaderboard")
        assert "attempt is over" in rendered(screen.query_one("#daily-error"))
        assert app.screen is screen
        await label_on("fours-up", "Play today's deal (one ranked attempt)")
        assert "Play: its deal at once" in rendered(screen.query_one("#daily-keys"))
