"""The "Your races" screen of `solrace play` (docs/protocol.md §9 `recent`).

Your own races that ended, newest first (guests and accounts alike): when, game, kind,
place, result, time and a rated race's rating change (the cards home and the moves are in
the highlighted race's details, so that the table is whole at 80 columns). Enter on the
highlighted race (or the Replay button) fetches its replay with the screen's own session
(so a private race of yours needs no invite) and opens the replay viewer over this screen
(client/tui/replay_screen.py: its deal move by move, each player's); a refusal — a daily
attempt sealed until its day closes, say — is one sentence under the list. The details
also say the race's id and the commands that view it (`solrace replay`), re-play and
check it from its revealed seed (`solrace verify --race ID`) and show where a win was lost
(`solrace analyze`, or here the Analysis button, key a); shift+↑↓ scroll them from the table where they run past their box (a
rated race's at 80x24). The text is built by client/tui/recent_text.py.
"""

from __future__ import annotations

from typing import Any

from rich.cells import cell_len
from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, DataTable, Label, Static

from .browse import unless_gone
from .errors import ServerError
from .net import token_path
from .recent_text import (
    COLUMNS,
    EMPTY_TEXT,
    KEYS_TEXT,
    RECENT_LIMIT,
    detail_text,
    recent_row,
    title_text,
)
from .replay_model import ReplayError, build_replay
from .replay_screen import ReplayScreen
from .replay_text import refusal_text
from .session import Session
from .tables import fixed_widths, list_widths, table_width, wrap_rows
from .widgets import leave_screen

#: The game's column when the names go on two lines: "Double Aces" (and Kings), "Rouge et Noir".
GAME_WRAPPED = 13


class RecentScreen(ModalScreen[None]):
    """Your latest races; the highlighted one's details, its replay and how to check it."""

    DEFAULT_CSS = """
    RecentScreen { align: center middle; }
    /* No padding beside the table: at 80 columns its seven columns need every cell. */
    #recent { width: 96%; height: 90%; border: round $accent; padding: 0; }
    #recent-title { width: 100%; padding: 0 1; }
    #recent-detail { padding: 0 1; }
    #recent-error { padding: 0 1; display: none; }
    #recent-keys { width: 100%; padding: 0 1; color: $text-muted; }
    #recent Horizontal { padding: 0 1; }
    #recent-races { height: 1fr; }
    #recent-detail-scroll { height: auto; max-height: 8; }
    #recent Horizontal { height: auto; }
    #recent Button { margin: 0 1 0 0; }
    #recent-error { width: 100%; color: $error; }
    """
    BINDINGS = [
        Binding("escape", "back", "back"),
        Binding("r", "reload", "refresh", show=False),
        Binding("a", "analysis", "analysis", show=False),
        # The table keeps the focus (its arrows pick the race), and a rated race's details
        # overflow their box at 80x24: these scroll them from there. Only Tab to the box, which
        # nothing said, or the mouse wheel reached their last rows (the commands).
        Binding("shift+down", "scroll_detail(1)", show=False),
        Binding("shift+up", "scroll_detail(-1)", show=False),
    ]

    def __init__(self, session: Session, server_url: str | None = None):
        super().__init__()
        self.session = session
        self.server_url = server_url
        self.races: list[dict[str, Any]] = []

    @property
    def logged_in(self) -> bool:
        return bool(getattr(self.session, "logged_in", False))

    @property
    def columns(self) -> tuple[str, ...]:
        """A guest plays no rated race: no rating column (its room goes to the others)."""
        return COLUMNS if self.logged_in else COLUMNS[:-1]

    def compose(self) -> ComposeResult:
        with Vertical(id="recent"):
            yield Label(title_text([], self.logged_in), id="recent-title")
            yield DataTable(id="recent-races", cursor_type="row", zebra_stripes=True)
            with VerticalScroll(id="recent-detail-scroll"):
                yield Static("loading your races…", id="recent-detail")
            yield Label("", id="recent-error")
            yield Label(KEYS_TEXT, id="recent-keys")
            with Horizontal():
                yield Button("Replay", id="recent-replay", variant="primary")
                yield Button("Analysis", id="recent-analysis")
                yield Button("Refresh", id="recent-refresh")
                yield Button("Back (Esc)", id="recent-back")

    def on_mount(self) -> None:
        table = self.query_one("#recent-races", DataTable)
        table.add_columns(*self.columns)
        table.focus()
        self.load()

    def say(self, text: str) -> None:
        """A refusal or an error on the row that says the keys otherwise (the rows of 80x24
        are all taken)."""
        error = self.query_one("#recent-error", Label)
        error.update(Text(text))
        error.display = bool(text)
        self.query_one("#recent-keys", Label).display = not text

    @work(exclusive=True, group="recent-load")
    @unless_gone
    async def load(self) -> None:
        try:
            reply = await self.session.request("recent", limit=RECENT_LIMIT)
        except ServerError as e:
            self.query_one("#recent-detail", Static).update("")
            self.say(f"your races: {e.describe()}")
            return
        self.say("")
        self.races = [r for r in reply.get("races") or [] if isinstance(r, dict)]
        self.draw()

    def on_resize(self, event: events.Resize) -> None:
        if self.races:
            self.draw()
            # the details' box may get its new width only once laid out again
            self.call_after_refresh(self.show_detail, self.query_one("#recent-races", DataTable).cursor_row)

    def draw(self) -> None:
        now = self.session.server_now()
        table = self.query_one("#recent-races", DataTable)
        cursor = table.cursor_row
        table.clear()
        columns = self.columns
        rows = [recent_row(race, now)[: len(columns)] for race in self.races]
        # Seven columns in 72 cells at 80 columns: the game's name goes on two lines first
        # ("Double Aces / and Kings"), whole; narrower, the game gives way (down to 6 cells),
        # then the result, the time ago, the rating, their cells cut.
        give_way = tuple(
            (c, floor) for c, floor in ((1, GAME_WRAPPED), (1, 6), (4, 6), (0, 8), (6, 4)) if c < len(columns)
        )
        # The rows a long game's name puts on two lines count for the scrollbar's room.
        lines = len(rows) + sum(cell_len(r[1]) > GAME_WRAPPED for r in rows)
        widths = list_widths(rows, table_width(self, table, lines), columns, give_way)
        fixed_widths(table, widths)
        for i, row in enumerate(wrap_rows(rows, widths, wrapped=(1,))):
            table.add_row(*row, key=str(i), height=None if any("\n" in c for c in row) else 1)
        self.query_one("#recent-title", Label).update(title_text(self.races, self.logged_in))
        if not self.races:
            self.query_one("#recent-detail", Static).update(Text(EMPTY_TEXT))
            return
        table.move_cursor(row=min(max(cursor, 0), len(self.races) - 1))
        self.show_detail(table.cursor_row)

    def show_detail(self, row: int) -> None:
        if 0 <= row < len(self.races):
            path = getattr(self.session, "token_file", None)
            # Named only when not the default one (a bare --token-file means the default).
            token_file = str(path) if path is not None and path != token_path(None) else None
            now = self.session.server_now()
            text = detail_text(self.races[row], self.server_url, now, token_file, self.detail_width())
            self.query_one("#recent-detail", Static).update(text)

    def detail_width(self) -> int:
        """The cells a row of the details has: the commands in them are broken to fit it, between
        their arguments (the terminal broke them anywhere). Its scrollbar's room is kept, and
        before the screen is laid out its box's share of the window is taken."""
        scroll = self.query_one("#recent-detail-scroll")
        box = scroll.size.width or int(self.app.size.width * 0.96) - 2  # #recent: 96%, its border
        return max(20, box - 2 - scroll.styles.scrollbar_size_vertical)  # less #recent-detail's padding

    @on(DataTable.RowHighlighted, "#recent-races")
    def highlighted(self, event: DataTable.RowHighlighted) -> None:
        self.say("")  # a refusal was about the row left
        # Another race's details from their first row: the box stayed scrolled where the last
        # race's commands were.
        self.query_one("#recent-detail-scroll", VerticalScroll).scroll_home(animate=False)
        self.show_detail(event.cursor_row)

    def action_scroll_detail(self, rows: int) -> None:
        scroll = self.query_one("#recent-detail-scroll", VerticalScroll)
        scroll.scroll_relative(y=rows, animate=False)

    @on(DataTable.RowSelected, "#recent-races")
    @on(Button.Pressed, "#recent-replay")
    def action_replay(self) -> None:
        row = self.query_one("#recent-races", DataTable).cursor_row
        if 0 <= row < len(self.races):
            self.open_replay(str(self.races[row].get("race", "")))

    @work(exclusive=True, group="recent-replay")
    @unless_gone
    async def open_replay(self, race: str) -> None:
        """Fetch the race's replay as this session's player, then view it over this screen."""
        self.say(f"fetching the replay of race {race}…")
        try:
            reply = await self.session.request("replay", race=race)
            replay = build_replay(reply)
        except ServerError as e:
            # The session asks as the player: no option of a command would help here.
            self.say(refusal_text(e.code, race, e.message, flags=False))
            return
        except ReplayError as e:
            self.say(f"race {race}: {e}")
            return
        self.say("")
        self.app.push_screen(ReplayScreen(replay, replay.index_of(self.session.player)))

    @on(Button.Pressed, "#recent-analysis")
    def action_analysis(self) -> None:
        row = self.query_one("#recent-races", DataTable).cursor_row
        if 0 <= row < len(self.races):
            race = self.races[row]
            self.open_analysis(str(race.get("race", "")), race.get("game"))

    @work(exclusive=True, group="recent-analysis")
    @unless_gone
    async def open_analysis(self, race: str, game: str | None) -> None:
        """Where each player's win was lost (the server's solver), over this screen."""
        from .analysis import show_analysis

        await show_analysis(self.app, self.session, race, game, lambda text, error=False: self.say(text))

    @on(Button.Pressed, "#recent-refresh")
    def action_reload(self) -> None:
        self.load()

    @on(Button.Pressed, "#recent-back")
    def action_back(self) -> None:
        leave_screen(self, None)
