"""`solrace play`: the race screen, a textual app: its layout, the server's events, the
board and the lines around it, the player's clicks, the moves sent. What a typed line does is
``command_line``'s; the way into a race and back out to the menu is ``menu_flow``'s; the
connection dropping and coming back (a quick-match wait asked for again) ``reconnection``'s; what
is decided and said lives in plain modules (``board``, ``model``, ``race_commands``, ``race_text``)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

from rich.text import Text
from textual import events, on, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.css.query import NoMatches
from textual.widgets import Input, Static

from protocol.rules.facts import UnknownGame
from protocol.rules.games import GAMES

from .board import Marks
from .board_input import click, home_move, targets_for
from .command_line import CommandLine, MoveInput
from .errors import REPLY_LOST, ServerError
from .intent import Intent
from .menu_flow import MenuFlow
from .model import RaceModel
from .race_commands import (
    CANNOT_CONNECT_PLACEHOLDER,
    CONNECTING_PLACEHOLDER,
    LOST_BEFORE_ANSWER,
    NOT_SENT,
    RematchWord,
    connecting_help,
    for_game,
    help_text,
    hints_possible,
    info_text,
    is_daily,
    not_sent_text,
    placeholder,
    rematch_word,
)
from .race_text import (
    connection_text,
    event_text,
    legal_text,
    lobby_change_text,
    lobby_text,
    move_done_text,
    ranking_toggled_text,
    result_text,
)
from .reconnection import connection_changed
from .session import GatedSession, Session
from .widgets import BoardView, bar_width, bars_text

#: The bars' rows in a short terminal (`.short #bars`'s max-height less its rule): a race of
#: more players shows the player's own, the leaders', and how many more.
SHORT_BAR_ROWS = 4
#: A move sent just before the connection dropped, whose answer did not come.
LOST_IN_FLIGHT = f"{LOST_BEFORE_ANSWER}: once reconnected, the board shows whether it was played"


class PlayApp(App[int]):
    """Race in the terminal. ``connect`` opens a :class:`Session`."""

    TITLE = "solrace play"
    CSS_PATH = "play_app.tcss"  # its layout, the short terminal's too
    #: Below this many rows the race screen is laid out for a short terminal (`.short`).
    SHORT_ROWS = 32
    BINDINGS = [
        Binding("escape", "deselect", "clear selection", show=False),
        Binding("ctrl+q", "quit", "quit", priority=True),  # on a modal screen (the menu) too
        # The command line keeps the focus: these scroll the board all the same.
        Binding("pageup", "scroll_board(-1)", "board up", show=False),
        Binding("pagedown", "scroll_board(1)", "board down", show=False),
        # A tall final board and the ranking do not both fit 80x24: this hides the ranking.
        Binding("ctrl+r", "toggle_ranking", "hide/show the ranking", show=False),
    ]

    def __init__(
        self,
        connect: Callable[[], Awaitable[Session]],
        intent: Intent | None = None,
        default_game: str | None = None,
        server_url: str | None = None,
        default_seats: int = 2,
        back_to: str | None = None,
    ):
        super().__init__()
        #: where quitting leads when this app plays one race for another (`solrace arena`'s
        #: "back to the arena"): no menu then, and the texts say so
        self.back_to = back_to
        self.server_url = server_url
        self.connect = connect
        self.intent = intent
        self.default_game = default_game
        self.default_seats = default_seats
        self.session: Session | None = None
        self.model = RaceModel()
        self.selected: tuple[str, int] | None = None
        self.move_lock = asyncio.Lock()
        self.moves_sent: list[str] = []
        self._resyncing = False
        #: races put behind with the `menu` command: their events are ignored
        self.races_left: set[str] = set()
        #: the header says "cannot connect", not "connecting…" for ever
        self.connect_failed = False
        #: what the board says until the session opens ("connecting…", or once that failed
        #: the ways on): a redraw (the start's resize) put "choose a game…" in its place
        self.unconnected_text = connection_text(None, server_url)
        #: the race of today's daily attempt, when this app started or resumed it
        self.daily_race: str | None = None
        #: the race whose `finish` waits for its confirmation (a second `finish`)
        self.finish_armed: str | None = None
        #: when the wait in the quick-match queue began (server ms), 0 when not queued
        self.queued_since = 0
        #: the finished race whose ranking ctrl+r hid (the next race's shows again)
        self.ranking_hidden: str | None = None
        #: a rival's latest rematch offer (its `rematch` event), for the race it names
        self.rematch_offer: dict[str, Any] | None = None
        #: every legal move under the board (the `legal` command), not the row that fits
        self.every_legal = False
        #: the connection dropped (a `disconnected` event) and is not back yet (`reconnected`):
        #: the words said of the drop; None while connected
        self.connection_lost: str | None = None
        #: what a request that the drop lost said (its fate unknown): the drop's own line, come
        #: after it, does not cover it (the header says the drop); None again once reconnected
        self.lost_said: str | None = None
        #: connects, leads into a race and back out to the menu
        self.menu_flow = MenuFlow(self)
        #: what a line typed on the command line does
        self.command_line = CommandLine(self)

    # -- layout -------------------------------------------------------------

    def compose(self) -> ComposeResult:
        connecting = self.unconnected_text
        yield Static(connecting, id="info")
        # Not focusable: a click on the board must leave the focus on the command line.
        with VerticalScroll(id="board-scroll", can_focus=False):
            yield BoardView(id="board", placeholder=connecting)
        with VerticalScroll(id="result-box", can_focus=False):
            yield Static(id="result")
        yield Static(id="bars")
        yield Static(id="hints")
        # Until the session opens nothing typed acts: the help says it is connecting.
        yield Static(connecting_help(connecting), id="status")
        yield MoveInput(lambda: self.model.legal, self.say, placeholder=CONNECTING_PLACEHOLDER, id="cmd")

    def on_mount(self) -> None:
        self.fit(self.size.height)
        self.query_one("#cmd", Input).focus()
        self.set_interval(0.25, self.refresh_info)
        self.menu_flow.main()

    async def on_unmount(self) -> None:
        await self.menu_flow.close()

    def on_resize(self, event: events.Resize) -> None:
        self.fit(event.size.height)
        self.call_after_refresh(self.redraw)  # the legal moves that fit the new width

    def toggle_legal(self) -> None:
        """`legal`: every legal move under the board, or again the row of those that fit."""
        m = self.model
        if not (m.status == "running" and m.my_status == "playing"):
            self.say("the legal moves show under the board while your game is on", error=True)
            return
        self.every_legal = not self.every_legal
        self.redraw()
        if self.every_legal:
            self.say(f"all {len(m.legal)} legal moves under the board: 'legal' again folds them")
        else:
            self.say("the legal moves: the row under the board ('legal' shows them all)")

    def fit(self, rows: int) -> None:
        self.screen_stack[0].set_class(rows < self.SHORT_ROWS, "short")

    def action_toggle_ranking(self) -> None:
        m = self.model
        if not (m.status == "finished" and m.ranking):
            self.say("no ranking yet: it comes when the race ends")
            return
        hide = self.ranking_hidden != m.race_id
        self.ranking_hidden = m.race_id if hide else None
        self.say(ranking_toggled_text(hide))
        self.redraw()

    def action_scroll_board(self, pages: int) -> None:
        """PgUp/PgDn: the ranking while it is shown and taller than its box (a short terminal
        caps it: with 8 players its tie notes pushed the seed's check and the status line off
        the screen), else the board; ctrl+r hides the ranking, and they scroll the board."""
        box = self.screen_stack[0].query_one("#result-box", VerticalScroll)
        ranking = box.display and box.max_scroll_y > 0
        scroll = box if ranking else self.screen_stack[0].query_one("#board-scroll", VerticalScroll)
        if pages < 0:  # at once, as the watch app's boards (WatchApp.action_scroll_boards)
            scroll.scroll_page_up(animate=False)
        else:
            scroll.scroll_page_down(animate=False)

    # -- status line ----------------------------------------------------------

    @property
    def online(self) -> bool:
        return bool(getattr(self.session, "online", False))

    def disconnected(self) -> bool:
        """The connection dropped and is not back yet."""
        return self.connection_lost is not None

    async def request(self, t: str, **fields: Any) -> dict[str, Any]:
        """The request ``t`` sent for the player: a move, a command typed (ready, finish,
        hint…). While the connection is lost it is not handed to the library, which would
        hold it for its reconnection (the status line said nothing for its 10 s, then "did not
        answer in time"): refused at once, a `not-sent` ServerError, to be done again once
        reconnected. What needs no server (help, rules, legal…) never comes here."""
        s = self.session
        if s is None:
            raise ServerError("disconnected", "not connected")
        if self.disconnected():
            raise ServerError(NOT_SENT, not_sent_text(t))
        return await s.request(t, **fields)

    def player_session(self) -> Session | None:
        """The session whose requests go through :meth:`request`, for what takes a session;
        offline, the session itself: it has no connection to lose, and the hint and the
        analysis tell an offline session by its class."""
        s = self.session
        return GatedSession(s, self.request) if s is not None and self.online else s

    def rematch_word(self) -> RematchWord:
        return rematch_word(self.model, self.rematch_offer, self.daily_race, self.back_to, self.online)

    def help_text(self) -> str:
        hints = hints_possible(self.model, self.online, self.daily_race)
        return help_text(self.model, hints, self.back_to, self.rematch_word(), self.online, self.daily_race)

    def say(self, text: str, error: bool = False) -> None:
        shown = self.query("#status")
        if not shown:  # the app is closing: as redraw, an event may come after the widgets went
            return
        st = shown.first(Static)
        st.update(Text(text))
        st.set_class(error, "error")
        # Two lines said before the next layout (the end's right after the `finish` reply's)
        # kept the first's height: textual sizes the line again only on a later refresh.
        self.call_after_refresh(st.refresh, layout=True)

    def say_lost(self, text: str) -> None:
        """Say what a request sent just before the connection dropped became (``text``): the
        library fails it as it tells of the drop, and the drop's line, come after, said only
        "connection lost" over it."""
        self.lost_said = text
        self.say(text, error=True)

    # -- the way in and out (menu_flow.py) ---------------------------------------

    def connect_again(self) -> None:
        """`retry` once connecting failed (a server started meanwhile): connecting again, as at
        the start (it offered only ctrl+q: quit, and start the app again)."""
        self.connect_failed = False
        connecting = self.unconnected_text = connection_text(None, self.server_url)
        self.query_one("#board", BoardView).show(None, placeholder=connecting)
        self.query_one("#cmd", Input).placeholder = CONNECTING_PLACEHOLDER
        self.say(connecting_help(connecting))
        self.menu_flow.main()

    def show_cannot_connect(self, text: str) -> None:
        self.unconnected_text = text
        self.query_one("#board", BoardView).show(None, placeholder=text)
        self.query_one("#cmd", Input).placeholder = CANNOT_CONNECT_PLACEHOLDER

    def show_command_line(self, shown: bool) -> None:
        """Hidden while the menu is open: nothing to act on until a race is chosen."""
        cmd = self.query_one("#cmd", Input)
        cmd.display = shown
        if shown:
            cmd.focus()

    # -- server events --------------------------------------------------------

    def on_server_event(self, ev: dict[str, Any]) -> None:
        t = ev.get("t")
        if t == "rematch":  # an offer for a race left for the menu may show there
            self.menu_flow.rematch_offered(ev)
            return
        race = ev.get("race")
        if isinstance(race, dict):  # a `state` carries the snapshot
            race = race.get("race")
        if isinstance(race, str) and race in self.races_left:
            return
        if t == "error":
            refused = ServerError(
                str(ev.get("code")), str(ev.get("message") or ""), retry_ms=ev.get("retry_ms")
            )
            self.say(refused.describe(), error=True)  # in words, as a reply's error
            return
        if t in ("disconnected", "reconnected"):
            connection_changed(self, ev)  # reconnection.py
            return
        lobby = self.model.status == "lobby" and t == "race"
        before = {p: replace(r) for p, r in self.model.players.items()} if lobby else None
        self.model.apply(ev)
        game = self.model.game
        if t in ("race", "start") and game and game not in GAMES:
            # A newer server's game: the board is shown pile by pile, and said once per event.
            self.say(f"{UnknownGame(game)} (update solrace to play it)", error=True)
            self.redraw()
            return
        if t == "start":
            self.selected = None
            self.say("Go! " + self.help_text())
            self.resync()
        elif said := event_text(ev, self.model, self.back_to, self.rematch_word()) or lobby_change_text(
            self.model, before
        ):
            self.say(said)
        if self.model.gap and not getattr(self.session, "handles_gaps", False):
            self.resync()
        self.redraw()

    @work(group="resync")
    async def resync(self, said: str | None = None) -> None:
        """The race as the server has it; ``said`` once it is applied (`refresh`, which said
        nothing: the previous command's answer stayed)."""
        if self._resyncing or not self.model.race_id or self.session is None:
            return
        self._resyncing = True
        try:
            state = await self.request("resync", race=self.model.race_id, since=self.model.ver or None)
            self.model.apply(state)
            if said:
                self.say(said)
        except ServerError as e:
            self.say(e.describe(), error=True)
        finally:
            self._resyncing = False
        self.redraw()

    # -- rendering ----------------------------------------------------------

    def marks(self) -> Marks:
        return Marks(self.selected, targets_for(self.model.legal, self.selected))

    def redraw(self) -> None:
        try:
            self._redraw()
        except NoMatches:
            # The app is closing: an event may come after some of the widgets are gone (a
            # bot's moves keep coming while the app quits), not only the board.
            return

    def _redraw(self) -> None:
        m = self.model
        board = self.query_one("#board", BoardView)
        if self.session is None:  # connecting, or it failed: no race nor menu to speak of yet
            board.show(None, placeholder=self.unconnected_text)
        elif m.board is not None:
            board.show(m.board, self.marks())
        else:
            board.show(
                None, placeholder=lobby_text(self.model, self.server_url, self.menu_flow.refused, self.online)
            )
        bars = self.query_one("#bars", Static)
        short = self.screen_stack[0].has_class("short")
        width = bar_width(bars.content_region.width or self.size.width - 2, m)
        bars.update(bars_text(m, width=width, rows=SHORT_BAR_ROWS if short else None))
        hints = self.query_one("#hints", Static)
        playing = m.status == "running" and m.my_status == "playing"
        hints.display = playing  # else no row of hints: its row goes to the board
        hints.set_class(self.every_legal, "every")
        rows = 1 if short else 4  # the CSS's max-height
        width = hints.content_region.width or self.size.width - 2
        hints.update(Text(legal_text(m.legal, width, rows, self.every_legal)) if playing else "")
        result = self.query_one("#result", Static)
        over = m.status == "finished" and bool(m.ranking)
        self.screen_stack[0].set_class(over, "over")
        shown = over and self.ranking_hidden != m.race_id
        if shown:
            result.update(result_text(self.model))
        result.display = self.query_one("#result-box", VerticalScroll).display = shown
        mine_over = m.my_status not in (None, "playing")
        daily = is_daily(m, self.daily_race)
        self.query_one("#cmd", Input).placeholder = (
            (CANNOT_CONNECT_PLACEHOLDER if self.connect_failed else CONNECTING_PLACEHOLDER)
            if self.session is None
            else for_game(placeholder(m.status, self.back_to, mine_over, self.rematch_word(), daily), m.game)
        )
        self.refresh_info()

    def refresh_info(self) -> None:
        m = self.model
        s = self.session
        now = s.server_now() if s is not None else 0
        if m.status == "queued":
            self.queued_since = self.queued_since or now
        else:
            self.queued_since = 0
        lost = self.disconnected()
        connection = connection_text(s, self.server_url, self.connect_failed, lost)
        text = info_text(m, now, connection, self.queued_since, self.selected, lost)
        info = self.query("#info")
        if not info:  # the app is closing: the interval may fire after the widgets are gone
            return
        info.first(Static).update(text)

    # -- input --------------------------------------------------------------

    @on(BoardView.PileClicked)
    def pile_clicked(self, msg: BoardView.PileClicked) -> None:
        board = self.model.board
        if board is None or self.model.status != "running":
            return
        if msg.chain >= 2:  # double click: send the card home if it can go
            self.selected = None
            move = home_move(self.model.legal, msg.pile)
            if move:
                self.send_move(move)
            else:
                self.say(f"{msg.pile}: no move to a foundation")
            self.redraw()
            return
        res = click(board, self.selected, msg.pile, msg.index, self.model.legal)
        self.selected = res.selected
        if res.note:
            self.say(res.note)
        if res.move:
            self.send_move(res.move)
        self.redraw()

    def action_deselect(self) -> None:
        self.selected = None
        self.query_one("#cmd", Input).value = ""
        self.redraw()

    @on(Input.Submitted, "#cmd")
    def submitted(self, event: Input.Submitted) -> None:
        text = event.value.strip()  # the command line is already empty (MoveInput.submit_line)
        if text:
            self.command_line.run(text)

    @work(group="moves")
    async def send_move(self, move: str) -> None:
        s = self.session
        if s is None:
            return
        self.finish_armed = None  # a move between two `finish` is no confirmation
        async with self.move_lock:
            m = self.model
            self.moves_sent.append(move)
            try:
                # While the connection is lost: said not sent at once (`request`); the board
                # stays as the server last had it, the move to be played again on it.
                ack = await self.request("move", race=m.race_id, n=m.n, move=move, view=True)
            except ServerError as e:
                if e.code == REPLY_LOST or (self.disconnected() and e.code in ("timeout", "disconnected")):
                    # Sent, then the connection dropped: the server may have played it or not.
                    # Said at once (the library does not resend it, nor wait for its timeout).
                    self.say_lost(f"{move}: {LOST_IN_FLIGHT}")
                    return
                self.say(f"{move}: {e.describe()}", error=True)
                if e.code == "out-of-sync":
                    self.resync()
                return
            m.apply(ack)
            self.say(move_done_text(move, ack))
            self.redraw()
