"""The ratings screen of `solrace play` (docs/protocol.md §9).

Your profile's ratings per game and latest rated races (`profile`; a guest has none and
is told how to get an account), and the rating board of the chosen game
(`rating_board`) with where you stand on it. The text is built by
client/tui/ratings_text.py.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Label, RadioButton, RadioSet, Static

from protocol.rules.facts import game_name
from protocol.rules.games import GAMES

from .browse import unless_gone
from .errors import ServerError
from .ratings_text import GUEST_TEXT, board_pending_text, board_text, my_game_rating, profile_text
from .session import Session
from .widgets import GameChoice, leave_screen

#: Entries of the rating board shown: the top ones, and either side of yours.
BOARD_TOP = 20
BOARD_AROUND = 2


class RatingsScreen(ModalScreen[None]):
    """Your ratings, and a game's rating board."""

    DEFAULT_CSS = """
    RatingsScreen { align: center middle; }
    #ratings { width: 96%; height: 90%; border: round $accent; padding: 0 1; }
    #ratings-scroll { height: 1fr; }
    /* Two games a row: in one row of four, at 80 columns, names were cut ("Rouge et Noi…"). */
    #ratings-games { layout: grid; grid-size: 2; grid-rows: 1; height: auto; width: 100%; }
    #ratings-games RadioButton { width: 1fr; }
    #ratings Horizontal { height: auto; }
    #ratings-error { color: $error; }
    """
    BINDINGS = [Binding("escape", "back", "back")]

    def __init__(self, session: Session, game: str | None = None):
        super().__init__()
        self.session = session
        self.game = game if game in GAMES else next(iter(GAMES))
        self.profile: dict[str, Any] | None = None
        #: what each part ("profile", "board") could not load, shown together on the error line:
        #: the board's next success must not clear the profile's failure
        self.errors: dict[str, str] = {}

    @property
    def logged_in(self) -> bool:
        return bool(getattr(self.session, "logged_in", False))

    def compose(self) -> ComposeResult:
        with Vertical(id="ratings"):
            with VerticalScroll(id="ratings-scroll"):
                yield Static("loading your ratings…", id="ratings-profile")
                with GameChoice(id="ratings-games"):
                    for gid in GAMES:
                        yield RadioButton(game_name(gid), value=gid == self.game, name=gid)
                yield Static(board_pending_text(self.game, "loading…"), id="ratings-board")
            yield Label("", id="ratings-error")
            with Horizontal():
                yield Button("Back (Esc)", id="ratings-back")

    def on_mount(self) -> None:
        self.query_one("#ratings-games", GameChoice).focus()
        self.load()

    def say(self, part: str, text: str) -> None:
        """`part`'s error ('': none)."""
        self.errors[part] = text
        self.query_one("#ratings-error", Label).update(Text("; ".join(t for t in self.errors.values() if t)))

    @work(group="ratings-load")
    @unless_gone
    async def load(self) -> None:
        shown = self.query_one("#ratings-profile", Static)
        if not self.logged_in:
            shown.update(Text(GUEST_TEXT))
        else:
            try:
                self.profile = await self.session.request("profile")
                shown.update(profile_text(self.profile))
            except ServerError as e:
                if e.code == "no-such-account":
                    shown.update(Text(GUEST_TEXT))
                else:
                    shown.update("")
                    self.say("profile", f"your ratings: {e.describe()}")
        self.show_board(self.game)

    @on(RadioSet.Changed, "#ratings-games")
    def game_changed(self, event: RadioSet.Changed) -> None:
        gid = event.pressed.name
        if gid and gid != self.game:
            self.game = gid
            self.show_board(gid)

    @work(exclusive=True, group="ratings-board")
    @unless_gone
    async def show_board(self, game: str) -> None:
        shown = self.query_one("#ratings-board", Static)
        shown.update(board_pending_text(game, "loading…"))
        try:
            board = await self.session.request("rating_board", game=game, top=BOARD_TOP, around=BOARD_AROUND)
        except ServerError as e:
            shown.update(board_pending_text(game, "not available (see below)"))
            self.say("board", f"{game_name(game)} rating board: {e.describe()}")
            return
        self.say("board", "")
        mine = my_game_rating(self.profile, game)
        shown.update(board_text(board, mine, self.logged_in, self.session.player))

    @on(Button.Pressed, "#ratings-back")
    def action_back(self) -> None:
        leave_screen(self, None)
