"""The daily challenge screen of `solrace play` (docs/protocol.md §5).

A row per game: today's daily (`daily`), your attempt and its place, your streak
(`history`). On the highlighted game, Play starts (or resumes) today's one ranked
attempt (the button and the line under it say so, and that Enter shows the leaderboard),
which the race screen then plays like any race (the screen dismisses with
``Intent("daily", game)``); once the attempt is over (the `daily` reply's `you` is
``done``), Play says so and shows the day's board, as Leaderboard does (`leaderboard`).
The text is built by client/tui/daily_text.py.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.css.query import NoMatches
from textual.screen import ModalScreen
from textual.widgets import Button, DataTable, Label, Static

from protocol.rules.facts import game_name
from protocol.rules.games import GAMES

from .browse import unless_gone
from .daily_text import (
    DAILY_KEYS,
    attempt_done,
    closes_text,
    daily_keys,
    daily_row,
    leaderboard_text,
    play_label,
)
from .errors import ServerError
from .intent import Intent
from .session import Session
from .tables import cut_rows, fixed_widths, list_widths, table_width
from .widgets import leave_screen

DAILY_COLUMNS = ("game", "today", "your attempt", "streak")
#: Entries of the leaderboard shown: the top ones, and either side of yours.
BOARD_TOP = 10
BOARD_AROUND = 2


class DailyScreen(ModalScreen[Intent | None]):
    """Today's daily per game; play one, or look at its leaderboard."""

    DEFAULT_CSS = """
    DailyScreen { align: center middle; }
    #daily { width: 100%; max-width: 120; height: 90%; border: round $accent; padding: 0 1; }
    #daily-games { height: auto; max-height: 8; }
    #daily Horizontal { height: auto; }
    #daily Button { margin: 0 1 0 0; }
    #daily-board-scroll { height: 1fr; }
    #daily-keys { width: 100%; color: $text-muted; }
    #daily-error { color: $error; }
    """
    BINDINGS = [Binding("escape", "back", "back")]

    def __init__(self, session: Session, game: str | None = None, server_url: str | None = None):
        super().__init__()
        self.session = session
        #: the server's URL, for the command that checks a closed day (`solrace verify --url`)
        self.server_url = server_url
        self.game = game if game in GAMES else next(iter(GAMES))
        self.infos: dict[str, dict[str, Any] | None] = {}
        #: each game's row in full (cut to the table's width when drawn)
        self.rows: dict[str, tuple[str, ...]] = {}
        #: the close (ms) a reload was asked for at: once per day
        self.reloaded_at_close = 0

    def compose(self) -> ComposeResult:
        with Vertical(id="daily"):
            yield Label("[b]Daily challenge[/b] — one deal per game per UTC day, one ranked attempt each")
            yield Label("", id="daily-closes")
            yield DataTable(id="daily-games", cursor_type="row")
            with Horizontal():
                yield Button(play_label(None), id="daily-play", variant="primary")
                yield Button("Leaderboard", id="daily-board")
                yield Button("Back (Esc)", id="daily-back")
            yield Label(DAILY_KEYS, id="daily-keys")
            yield Label("", id="daily-error")
            with VerticalScroll(id="daily-board-scroll"):
                yield Static("", id="daily-board-text")

    def on_mount(self) -> None:
        table = self.query_one("#daily-games", DataTable)
        table.add_columns(*DAILY_COLUMNS)
        for gid in GAMES:
            self.rows[gid] = (game_name(gid), "…", "…", "…")
            table.add_row(*self.rows[gid], key=gid)
        table.move_cursor(row=list(GAMES).index(self.game))
        table.focus()
        self.load()
        self.set_interval(1.0, self.tick)

    def tick(self) -> None:
        """The close's countdown, each second; at the close, the new day's dailies (the screen
        may stay open across midnight UTC: it said "close in" a time long past)."""
        info = next((i for i in self.infos.values() if i is not None and i.get("closes")), None)
        if info is None or not self.is_attached:  # (a tick as the app shuts down: widgets gone)
            return
        now = self.session.server_now()
        if now >= info["closes"]:
            if self.reloaded_at_close != info["closes"]:
                self.reloaded_at_close = info["closes"]
                self.load()
            return
        try:
            self.query_one("#daily-closes", Label).update(closes_text(info, now))
        except NoMatches:  # the app shutting down: the screen still attached, its widgets gone
            pass

    def draw_rows(self, table: DataTable[str]) -> None:
        """Every row, cut to the table's width: "today" gives way first, then "your attempt",
        then the game (at 80 columns the streak was pushed off the screen)."""
        gids = list(self.rows)
        rows = list(self.rows.values())
        widths = list_widths(
            rows, table_width(self, table, len(rows)), DAILY_COLUMNS, ((1, 12), (2, 14), (0, 10))
        )
        fixed_widths(table, widths)
        for gid, cells in zip(gids, cut_rows(rows, widths), strict=True):
            for column, cell in zip(table.ordered_columns, cells, strict=True):
                table.update_cell(gid, column.key, cell)

    def on_resize(self, event: events.Resize) -> None:
        self.draw_rows(self.query_one("#daily-games", DataTable))

    @on(DataTable.RowHighlighted, "#daily-games")
    def label_play(self) -> None:
        """Play, and the keys line, say what it does for the highlighted game: resume an attempt
        under way, or show the board of one that is over."""
        info = self.infos.get(self.selected())
        self.query_one("#daily-play", Button).label = play_label(info)
        self.query_one("#daily-keys", Label).update(daily_keys(info))

    def say(self, text: str) -> None:
        self.query_one("#daily-error", Label).update(Text(text))

    def selected(self) -> str:
        table = self.query_one("#daily-games", DataTable)
        games = list(GAMES)
        return games[min(max(table.cursor_row, 0), len(games) - 1)]

    @work(group="daily-load")
    @unless_gone
    async def load(self) -> None:
        """Each game's daily and streak, one row at a time."""
        table = self.query_one("#daily-games", DataTable)
        errors: list[str] = []
        for gid in GAMES:
            info: dict[str, Any] | None = None
            history: dict[str, Any] | None = None
            try:
                info = await self.session.request("daily", game=gid)
            except ServerError as e:
                errors.append(f"{game_name(gid)}: {e.describe()}")
            try:
                history = await self.session.request("history", game=gid, days=0)
            except ServerError:
                pass  # the streak is extra: the row shows without it
            if not self.is_attached:
                # The screen left while it asked: its widgets are gone (the worker failed on them,
                # and a failed worker ends the app). As the app shuts down the screen is still
                # attached while its widgets go: `unless_gone` (a loaded tests/tui run).
                return
            self.infos[gid] = info
            if info is not None:
                self.query_one("#daily-closes", Label).update(closes_text(info, self.session.server_now()))
            self.rows[gid] = daily_row(gid, info, history)
            self.draw_rows(table)
            self.label_play()
        if errors:
            self.say("; ".join(errors))

    @on(Button.Pressed, "#daily-play")
    def play(self) -> None:
        gid = self.selected()
        if attempt_done(self.infos.get(gid)):
            self.say(f"today's {game_name(gid)} attempt is over: one ranked attempt a day")
            self.show_board(gid)
            return
        leave_screen(self, Intent("daily", gid))

    @on(Button.Pressed, "#daily-board")
    @on(DataTable.RowSelected, "#daily-games")
    def board(self) -> None:
        self.show_board(self.selected())

    @work(exclusive=True, group="daily-board")
    @unless_gone
    async def show_board(self, game: str) -> None:
        text = self.query_one("#daily-board-text", Static)
        try:
            board = await self.session.request("leaderboard", game=game, top=BOARD_TOP, around=BOARD_AROUND)
        except ServerError as e:
            self.say(f"{game_name(game)} leaderboard: {e.describe()}")
            return
        text.update(leaderboard_text(board, self.session.player, self.server_url))

    @on(Button.Pressed, "#daily-back")
    def action_back(self) -> None:
        leave_screen(self, None)
