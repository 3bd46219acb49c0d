"""The terminal race app's first screen: choose a game and how to play it (`Intent`).

Online it also says who you play as (a guest or an account, and the commands that log
in or keep a guest as an account) and opens the daily challenge (client/tui/daily_screen.py,
whose Play comes back here as the intent) and the ratings (client/tui/ratings_screen.py).
"""

from __future__ import annotations

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, RadioButton, RadioSet

from protocol.rules.games import GAMES

from .intent import Intent
from .session import Session

__all__ = ["Intent", "MenuScreen", "identity_text"]


def identity_text(name: str, logged_in: bool) -> str:
    """Who the menu says you play as, and how to change it."""
    if logged_in:
        return f"You: [b]{name}[/b] (account) · solrace play --logout to log out"
    return (
        f"You: [b]{name}[/b] (guest) · to play as your account: solrace play --login NAME;"
        " to keep this guest as an account: --claim NAME"
    )


class MenuScreen(ModalScreen[Intent]):
    """Choose a game and how to play it. With an online ``session``: the daily challenge
    and ratings too."""

    DEFAULT_CSS = """
    MenuScreen { align: center middle; }
    #menu { width: 72; height: auto; border: round $accent; padding: 1 2; }
    #menu-you { width: 100%; margin-bottom: 1; }
    #menu Horizontal { height: auto; }
    #menu Input { width: 1fr; }
    #menu Button { margin: 0 1 0 0; }
    #menu-error { color: $error; }
    """

    def __init__(self, game: str | None = None, seats: int = 2, session: Session | None = None):
        super().__init__()
        self.game = game or "racing-aces"
        self.seats = seats
        #: an online session (the daily challenge and ratings live on the server); None offline
        self.session = session if getattr(session, "online", False) else None

    def compose(self) -> ComposeResult:
        with Vertical(id="menu"):
            yield Label("[b]solrace[/b] — choose a game")
            if self.session is not None:
                logged_in = bool(getattr(self.session, "logged_in", False))
                yield Label(identity_text(self.session.name, logged_in), id="menu-you")
            with RadioSet(id="games"):
                for gid, name in ((g.id, g.name) for g in GAMES.values()):
                    yield RadioButton(f"{name}  [dim]{gid}[/dim]", value=gid == self.game, name=gid)
            with Horizontal():
                yield Label("seats ")
                yield Input(str(self.seats), id="seats", type="integer")
            with Horizontal():
                yield Button("Quick match", id="quick", variant="primary")
                yield Button("Create race", id="create")
            with Horizontal():
                yield Input(placeholder="race id or link", id="join-id")
                yield Button("Join", id="join")
            if self.session is not None:
                with Horizontal():
                    yield Button("Daily challenge", id="daily")
                    yield Button("Ratings", id="ratings")
            yield Label("", id="menu-error")

    def _game(self) -> str:
        rs = self.query_one("#games", RadioSet)
        btn = rs.pressed_button
        return btn.name if btn is not None and btn.name else self.game

    def _seats(self) -> int:
        try:
            return max(1, min(8, int(self.query_one("#seats", Input).value or "2")))
        except ValueError:
            return 2

    @on(Button.Pressed, "#quick")
    def _quick(self) -> None:
        self.dismiss(Intent("quick", self._game(), max(2, self._seats())))

    @on(Button.Pressed, "#create")
    def _create(self) -> None:
        self.dismiss(Intent("create", self._game(), self._seats()))

    @on(Button.Pressed, "#join")
    @on(Input.Submitted, "#join-id")
    def _join(self) -> None:
        from .links import parse_invite, parse_link

        text = self.query_one("#join-id", Input).value.strip()
        if not text:
            self.query_one("#menu-error", Label).update("type a race id or link")
            return
        _url, race = parse_link(text)
        self.dismiss(Intent("join", race=race, invite=parse_invite(text)))

    @on(Button.Pressed, "#daily")
    @work(group="menu-screens")
    async def _daily(self) -> None:
        from .daily_screen import DailyScreen

        assert self.session is not None
        intent = await self.app.push_screen_wait(DailyScreen(self.session, self._game()))
        if intent is not None:
            self.dismiss(intent)

    @on(Button.Pressed, "#ratings")
    def _ratings(self) -> None:
        from .ratings_screen import RatingsScreen

        assert self.session is not None
        self.app.push_screen(RatingsScreen(self.session, self._game()))
