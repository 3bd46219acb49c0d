"""The terminal race app's first screen: choose a game and how to play it (`Intent`).

It says the connection's state ("connected to HOST", or "offline"). Online it also says
who you play as (a guest or an account, and the commands that log in or keep a guest as
an account), takes a race id or link to join (offline there is none to join), offers "Race a bot" (a private race against a bot of
the level chosen, at once: client/tui/session.py's race_bot), offers an account rated
races (the "rated" box: Quick match then waits in the rating pool, Create makes a rated
lobby), and opens the daily challenge (client/tui/daily_screen.py, whose Play comes back
here as the intent), the ratings (client/tui/ratings_screen.py) and your recent races
(client/tui/recent_screen.py).

Opened from a finished race (the `menu` command), it shows a rival's rematch offer for that
race with an Accept button and a "No thanks" one (the offer hidden and forgotten, in this
client only: the server has no decline), as the browser's banner away from the race's page.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.cells import cell_len
from rich.markup import escape
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.css.query import NoMatches
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, Label, RadioButton, RadioSet

from protocol.rules.facts import facts_of
from protocol.rules.games import GAMES

from .intent import BOT_LEVELS, DEFAULT_BOT_LEVEL, Intent
from .race_text import connection_text, menu_offer_text
from .session import Session
from .widgets import GameChoice

__all__ = ["Intent", "MenuScreen", "identity_text"]


def blurb(game: str) -> str:
    """What the menu says of how ``game`` is played."""
    return facts_of(GAMES[game])["blurb"] if game in GAMES else ""


#: The cells of a row of the menu's box at 80 columns: its commands are kept whole in them.
MENU_COLUMNS = 68
#: The menu box's width; a narrower terminal gets a box as wide as itself, whose rows of
#: buttons are laid out for it (``MenuScreen.fit``).
MENU_WIDTH = 72


def identity_text(name: str, logged_in: bool, width: int = MENU_COLUMNS) -> str:
    """Who the menu says you play as, and the commands that change it, each whole on its row
    of ``width`` cells (at 80 columns "solrace play --login" and "NAME" were on two rows, and
    "--claim NAME" was no command of its own)."""
    who = f"You: {name} ({'account' if logged_in else 'guest'})"
    if logged_in:
        rows = [who, "to log out: solrace play --logout"]
    else:
        rows = [who, "your account: solrace play --login NAME"]
    if cell_len(" · ".join(rows)) <= width:
        rows = [" · ".join(rows)]
    if not logged_in:
        keep = "to keep this guest as an account: solrace play --claim NAME"
        rows += (
            [keep]
            if cell_len(keep) <= width
            else ["to keep this guest as an account:", "solrace play --claim NAME"]
        )
    text = "\n".join(rows)
    return text.replace(f"You: {name} ", f"You: [b]{escape(name)}[/b] ", 1)


class MenuScreen(ModalScreen[Intent | None]):
    """Choose a game and how to play it. With an online ``session``: a race against a bot,
    the daily challenge, ratings and your races too, and for an account the rated box.

    Esc goes back one level: to the race the `menu` command left (``back_to_race``: the
    screen dismisses with None), else out of a field to Quick match; it never quits."""

    BINDINGS = [Binding("escape", "back", "back")]

    DEFAULT_CSS = """
    MenuScreen { align: center middle; }
    #menu { width: 72; max-width: 100%; height: auto; max-height: 100%; border: round $accent;
            padding: 1 2; }
    MenuScreen.short #menu { padding: 0 2; }
    #menu-you { width: 100%; }
    #menu-conn { width: 100%; margin-bottom: 1; color: $text-muted; }
    #menu Horizontal { height: auto; }
    #menu Input { width: 1fr; }
    #menu #seats { width: 8; }
    #menu #how { margin: 0 0 0 2; }
    #menu Button { margin: 0 1 0 0; }
    #menu-error { color: $error; }
    #menu-blurb { width: 100%; color: $text-muted; margin-bottom: 1; }
    MenuScreen.short #menu-blurb { display: none; }
    #menu-rematch { display: none; }
    #menu-rematch.offered { display: block; }
    /* The offer's line wraps rather than push its buttons out of the menu's box. */
    #menu-rematch Label { width: 1fr; margin-right: 1; }
    #menu-rematch Button { min-width: 0; }
    /* Narrower than the box (60 columns): "Race a bot" over its buttons, not beside them. */
    #bot-title { display: none; }
    MenuScreen.narrow #bot-title { display: block; }
    MenuScreen.narrow #bot-label { display: none; }
    """

    def __init__(
        self,
        game: str | None = None,
        seats: int = 2,
        session: Session | None = None,
        server_url: str | None = None,
        back_to_race: str | None = None,
        rematch_offer: dict[str, Any] | None = None,
        declined: Callable[[dict[str, Any]], None] | None = None,
    ):
        super().__init__()
        self.game = game or "racing-aces"
        #: the race the `menu` command left, which Esc goes back to
        self.back_to_race = back_to_race
        #: a rival's rematch offer for that race (a `rematch` event), which Accept takes
        self.rematch_offer = rematch_offer
        #: told of the offer "No thanks" hid, so that it is forgotten beyond the menu too
        self.declined = declined
        self.seats = seats
        #: the menu covers most of the race screen, whose header says it too
        self.connection = connection_text(session, server_url)
        #: the session the connection's line is said of (``connection``; offline too)
        self.connected_through = session
        #: an online session (the daily challenge and ratings live on the server); None offline
        self.session = session if getattr(session, "online", False) else None
        #: the server's URL, for the commands the screens show (`solrace verify --url ...`)
        self.server_url = server_url

    @property
    def logged_in(self) -> bool:
        return self.session is not None and bool(getattr(self.session, "logged_in", False))

    def compose(self) -> ComposeResult:
        # Scrolls rather than cut off what a short terminal has no rows for.
        with VerticalScroll(id="menu"):
            back = f" · Esc: back to race {self.back_to_race}" if self.back_to_race else ""
            yield Label(f"[b]solrace[/b] — choose a game{back}", id="menu-title")
            with Horizontal(id="menu-rematch"):
                yield Label("", id="menu-rematch-text", markup=False)
                yield Button("Accept", id="accept-rematch", variant="success")
                yield Button("No thanks", id="decline-rematch")
            if self.session is not None:
                yield Label(identity_text(self.session.name, self.logged_in), id="menu-you")
            yield Label(f"{self.connection} · ctrl+q quits", id="menu-conn", markup=False)
            with GameChoice(id="games"):
                for gid, name in ((g.id, g.name) for g in GAMES.values()):
                    yield RadioButton(f"{name}  [dim]{gid}[/dim]", value=gid == self.game, name=gid)
            # How the game chosen is played: the names alone told a new player nothing (a short
            # terminal has no rows for it: "How to play" opens it there, as `rules` in a race).
            yield Label(blurb(self.game), id="menu-blurb", markup=False)
            with Horizontal():
                yield Label("seats ")
                yield Input(str(self.seats), id="seats", type="integer")
                if self.logged_in:
                    yield Checkbox("rated", id="rated")
                # The blurb above has no rows on a short terminal: its words, and how to move, here.
                yield Button("How to play", id="how")
            with Horizontal():
                yield Button("Quick match", id="quick", variant="primary")
                yield Button("Create race", id="create")
                # A race of one seat, started at once: the one kind with hints (and no wait).
                yield Button("Practice alone", id="practice")
            if self.session is not None:
                # At once: Quick match seats a bot only after a wait alone in its queue.
                # One button a level, not a Select: Textual's Select failed its own mount now
                # and then when the menu was dismissed at once (a race resumed from a token).
                yield Label("Race a bot", id="bot-title")
                with Horizontal():
                    yield Label("Race a bot ", id="bot-label")
                    for level, label in BOT_LEVELS:
                        yield Button(
                            label,
                            id=f"bot-{level}",
                            classes="bot-level",
                            variant="primary" if level == DEFAULT_BOT_LEVEL else "default",
                        )
            if self.session is not None:
                # Offline there is no race to join: every id typed there would be "no such race".
                with Horizontal():
                    yield Input(placeholder="race id or link", id="join-id")
                    yield Button("Join", id="join")
                with Horizontal():
                    yield Button("Daily challenge", id="daily")
                    yield Button("Ratings", id="ratings")
                    yield Button("Your races", id="recent")
            yield Label("", id="menu-error")

    #: Below this many terminal rows the menu's widgets are compact (one row each): an
    #: online menu then fits 80x24 whole.
    SHORT_ROWS = 32

    def on_mount(self) -> None:
        self.query_one("#quick", Button).focus()  # Enter plays at once; Tab moves on
        disconnected = getattr(self.app, "disconnected", None)  # the play app's: opened while lost
        if callable(disconnected) and disconnected():
            self.connection = connection_text(self.connected_through, self.server_url, lost=True)
        self.fit(self.app.size.width)
        if self.app.size.height < self.SHORT_ROWS:
            self.add_class("short")
            for widget in self.query("Button, Input, Checkbox, RadioSet"):
                widget.compact = True  # type: ignore[attr-defined]
        if self.rematch_offer is not None:
            self.show_rematch_offer(self.rematch_offer)

    def on_resize(self, event: events.Resize) -> None:
        self.fit(event.size.width)

    def fit(self, columns: int) -> None:
        """The menu in a terminal of ``columns``: narrower than its box, the box is as wide as
        the terminal (at 60 columns its right side was cut off, with the last bot level and
        Join) and its rows are laid out for that width, their commands whole."""
        self.set_class(columns < MENU_WIDTH, "narrow")
        # The box's border and padding, and a scroll bar's room.
        width = MENU_COLUMNS if columns >= MENU_WIDTH else columns - 8
        if self.session is not None:
            self.query_one("#menu-you", Label).update(identity_text(self.session.name, self.logged_in, width))
        conn = f"{self.connection} · ctrl+q quits"
        self.query_one("#menu-conn", Label).update(
            conn if cell_len(conn) <= width else f"{self.connection}\nctrl+q quits"
        )

    def show_connection(self, lost: bool) -> None:
        """The connection dropped (``lost``) or is back: said as the header says it (the line
        said "connected to HOST" all along, worked out once)."""
        self.connection = connection_text(self.connected_through, self.server_url, lost=lost)
        try:
            self.fit(self.app.size.width)
        except NoMatches:
            pass  # not composed yet: on_mount says it

    @on(RadioSet.Changed, "#games")
    def _game_changed(self) -> None:
        self.query_one("#menu-blurb", Label).update(blurb(self._game()))

    def show_rematch_offer(self, offer: dict[str, Any]) -> None:
        """A rival's rematch offer for the race the menu was opened from: its line, Accept and
        No thanks. The focus stays where it is: the player may be typing in a field."""
        self.rematch_offer = offer
        try:
            self.query_one("#menu-rematch-text", Label).update(menu_offer_text(offer))
        except NoMatches:
            return  # not composed yet: on_mount shows it
        self.query_one("#menu-rematch").add_class("offered")

    @on(Button.Pressed, "#accept-rematch")
    def _accept_rematch(self) -> None:
        offer = self.rematch_offer
        if offer is not None:
            self.dismiss(Intent("accept", race=offer.get("rematch"), invite=offer.get("invite")))

    @on(Button.Pressed, "#decline-rematch")
    def _decline_rematch(self) -> None:
        """No thanks: the offer hidden and forgotten (the browser banner's "No thanks"); the
        rival is not told, and a new offer shows again."""
        offer, self.rematch_offer = self.rematch_offer, None
        row = self.query_one("#menu-rematch")
        row.remove_class("offered")
        focused = self.focused
        if focused is not None and row in focused.ancestors:
            self.query_one("#quick", Button).focus()  # not left on a hidden button
        if offer is not None and self.declined is not None:
            self.declined(offer)

    def action_back(self) -> None:
        if self.back_to_race:
            self.dismiss(None)
            return
        # The top of the menu: nothing to go back to, and quitting is ctrl+q's.
        self.query_one("#menu-error", Label).update("")
        self.query_one("#quick", Button).focus()

    def _game(self) -> str:
        rs = self.query_one("#games", RadioSet)
        btn = rs.pressed_button
        return btn.name if btn is not None and btn.name else self.game

    def _seats(self) -> int:
        try:
            return max(1, min(8, int(self.query_one("#seats", Input).value or "2")))
        except ValueError:
            return 2

    def _rated(self) -> bool:
        boxes = self.query("#rated")
        return bool(boxes) and boxes.first(Checkbox).value

    @on(Button.Pressed, "#quick")
    def _quick(self) -> None:
        self.dismiss(Intent("quick", self._game(), max(2, self._seats()), rated=self._rated()))

    @on(Button.Pressed, "#create")
    def _create(self) -> None:
        rated = self._rated()
        seats = max(2, self._seats()) if rated else self._seats()  # a rated race has 2 seats or more
        self.dismiss(Intent("create", self._game(), seats, rated=rated))

    @on(Button.Pressed, "#practice")
    def _practice(self) -> None:
        self.dismiss(Intent("practice", self._game(), 1, private=True))

    @on(Button.Pressed, ".bot-level")
    def _bot(self, event: Button.Pressed) -> None:
        level = (event.button.id or "").removeprefix("bot-")
        self.dismiss(Intent("bot", self._game(), 2, level=level))

    @on(Button.Pressed, "#join")
    @on(Input.Submitted, "#join-id")
    def _join(self) -> None:
        from .links import parse_invite, parse_link

        text = self.query_one("#join-id", Input).value.strip()
        if not text:
            self.query_one("#menu-error", Label).update("type a race id or link")
            return
        try:
            _url, race = parse_link(text)
        except ValueError as e:  # a link naming no race was a traceback; a long id, raw words
            self.query_one("#menu-error", Label).update(str(e))
            return
        self.dismiss(Intent("join", race=race, invite=parse_invite(text)))

    @on(Button.Pressed, "#how")
    def _how(self) -> None:
        from .rules_screen import RulesScreen

        self.app.push_screen(RulesScreen(self._game()))

    @on(Button.Pressed, "#daily")
    @work(group="menu-screens")
    async def _daily(self) -> None:
        from .daily_screen import DailyScreen

        assert self.session is not None
        intent = await self.app.push_screen_wait(DailyScreen(self.session, self._game(), self.server_url))
        if intent is not None:
            self.dismiss(intent)

    @on(Button.Pressed, "#ratings")
    def _ratings(self) -> None:
        from .ratings_screen import RatingsScreen

        assert self.session is not None
        self.app.push_screen(RatingsScreen(self.session, self._game()))

    @on(Button.Pressed, "#recent")
    def _recent(self) -> None:
        from .recent_screen import RecentScreen

        assert self.session is not None
        self.app.push_screen(RecentScreen(self.session, self.server_url))
