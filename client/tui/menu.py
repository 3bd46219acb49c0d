"""The terminal race app's first screen: choose a game and how to play it (`Intent`)."""

from __future__ import annotations

from dataclasses import dataclass

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, RadioButton, RadioSet

from protocol.rules.games import GAMES


@dataclass
class Intent:
    mode: str  # quick | create | join | resume
    game: str | None = None
    seats: int = 2
    time_limit_s: int = 600
    private: bool = False
    race: str | None = None
    invite: str | None = None  # a private race's secret, from its link


class MenuScreen(ModalScreen[Intent]):
    """Choose a game and how to play it."""

    DEFAULT_CSS = """
    MenuScreen { align: center middle; }
    #menu { width: 64; height: auto; border: round $accent; padding: 1 2; }
    #menu Horizontal { height: auto; }
    #menu Input { width: 1fr; }
    #menu Button { margin: 0 1 0 0; }
    #menu-error { color: $error; }
    """

    def __init__(self, game: str | None = None, seats: int = 2):
        super().__init__()
        self.game = game or "racing-aces"
        self.seats = seats

    def compose(self) -> ComposeResult:
        with Vertical(id="menu"):
            yield Label("[b]solrace[/b] — choose a game")
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
