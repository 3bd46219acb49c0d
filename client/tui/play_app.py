"""`solrace play`: the textual app. Logic lives in board.py and model.py."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
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

from .board import Marks, card_text, click, complete, home_move, targets_for
from .hints import ask_hint
from .menu import Intent, MenuScreen
from .model import RaceModel
from .race_commands import (
    HELP,
    PLACEHOLDER,
    finish_prompt,
    help_text,
    hints_possible,
    info_text,
    menu_refusal,
    placeholder,
)
from .race_text import (
    NO_BOT,
    RANKING_KEYS,
    connection_text,
    lobby_text,
    ranking_toggled_text,
    rating_change_text,
    result_text,
    started_text,
)
from .ratings_text import rated_needs_account
from .session import ServerError, Session, start
from .widgets import BoardView, bar_width, bars_text


class MoveInput(Input):
    """The command line. Tab completes a legal move; bound here, not on the app, so
    that a Tab typed right after a letter is handled after that letter."""

    BINDINGS = [Binding("tab", "complete", "complete move", show=False)]

    def action_complete(self) -> None:
        app = self.app
        if isinstance(app, PlayApp):
            app.action_complete()


class PlayApp(App[int]):
    """Race in the terminal. ``connect`` opens a :class:`Session`."""

    TITLE = "solrace play"
    CSS = """
    Screen { layout: vertical; }
    #info { height: 2; padding: 0 1; background: $boost; text-wrap: nowrap; text-overflow: ellipsis; }
    #board-scroll { height: 1fr; overflow: auto auto; }
    #bars { height: auto; max-height: 10; padding: 0 1; border-top: solid $primary-darken-2;
            text-wrap: nowrap; text-overflow: ellipsis; }
    #hints { height: auto; max-height: 4; padding: 0 1; color: $text-muted; }
    #result { height: auto; padding: 0 1; display: none; border: round $success; }
    /* Once the race is over the ranking takes the bars' place: the same players, ranked. */
    .over #bars { display: none; }
    #status { height: auto; max-height: 3; padding: 0 1; }
    #status.error { color: $error; }
    #cmd { dock: bottom; }
    /* A short terminal (80x24): the board gets the rows; one row of legal moves and a
       borderless command line. */
    .short #hints { max-height: 1; text-wrap: nowrap; text-overflow: ellipsis; }
    .short #bars { max-height: 5; }
    .short #cmd { border: none; height: 1; padding: 0 1; background: $boost; }
    /* The ranking under a rule like the bars': a box's two rows go to the board. */
    .short #result { border: none; border-top: solid $success; }
    """
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
        self._completion: tuple[str, str] | None = None  # (prefix typed, last completion)
        self._resyncing = False
        #: races put behind with the `menu` command: their events are ignored
        self.races_left: set[str] = set()
        #: the header says "cannot connect", not "connecting…" for ever
        self.connect_failed = False
        #: the race of today's daily attempt, when this app started or resumed it
        self.daily_race: str | None = None
        #: the race whose `finish` waits for its confirmation (a second `finish`)
        self.finish_armed: str | None = None
        #: when the wait in the quick-match queue began (server ms), 0 when not queued
        self._queued_since = 0
        #: the finished race whose ranking ctrl+r hid (the next race's shows again)
        self.ranking_hidden: str | None = None

    # -- layout -------------------------------------------------------------

    def compose(self) -> ComposeResult:
        connecting = connection_text(None, self.server_url)
        yield Static(connecting, id="info")
        # Not focusable: a click on the board must leave the focus on the command line.
        with VerticalScroll(id="board-scroll", can_focus=False):
            yield BoardView(id="board", placeholder=connecting)
        yield Static(id="result")
        yield Static(id="bars")
        yield Static(id="hints")
        yield Static(HELP, id="status")
        yield MoveInput(placeholder=PLACEHOLDER, id="cmd")

    def on_mount(self) -> None:
        self.fit(self.size.height)
        self.query_one("#cmd", Input).focus()
        self.set_interval(0.25, self.refresh_info)
        self.main()

    async def on_unmount(self) -> None:
        if self.session is None:
            return
        if self.model.status == "queued" and self.model.game:
            try:  # leave the quick-match queue rather than be seated in absence
                async with asyncio.timeout(2):
                    await self.session.request("unqueue", game=self.model.game)
            except (TimeoutError, ServerError):
                pass
        await self.session.close()

    def on_resize(self, event: events.Resize) -> None:
        self.fit(event.size.height)

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
        scroll = self.screen_stack[0].query_one("#board-scroll", VerticalScroll)
        if pages < 0:  # at once, as the watch app's boards (WatchApp.action_scroll_boards)
            scroll.scroll_page_up(animate=False)
        else:
            scroll.scroll_page_down(animate=False)

    # -- status line ----------------------------------------------------------

    def help_text(self) -> str:
        online = bool(getattr(self.session, "online", False))
        return help_text(self.model, hints_possible(self.model, online, self.daily_race), self.back_to)

    def say(self, text: str, error: bool = False) -> None:
        st = self.query_one("#status", Static)
        st.update(Text(text))
        st.set_class(error, "error")
        # Two lines said before the next layout (the end's right after the `finish` reply's)
        # kept the first's height: textual sizes the line again only on a later refresh.
        self.call_after_refresh(st.refresh, layout=True)

    # -- connection ---------------------------------------------------------

    @work(exclusive=True, group="main")
    async def main(self) -> None:
        try:
            self.session = await self.connect()
        except Exception as e:  # noqa: BLE001 — shown to the user
            self.connect_failed = True
            self.say(f"cannot connect: {e}", error=True)
            self.query_one("#board", BoardView).show(None, placeholder=f"cannot connect: {e}")
            return
        for line in getattr(self.session, "notices", ()):  # e.g. a new guest stood in
            self.notify(line, severity="warning", timeout=15)
        self.model.me = self.session.player
        self.pump()
        intent = self.intent
        seated = list(getattr(self.session, "seated_races", None) or [])
        if intent is None and seated and await self.resume_seated(seated):
            return
        while intent is None:  # the first menu has nothing to go back to: no None from it
            intent = await self.choose()
        await self.begin(intent)

    async def resume_seated(self, seated: list[str]) -> bool:
        """Back to a race the token still holds a seat in, if the player's own game in it is
        not over: one that goes on only for the others is left to them (the menu instead)."""
        over = []
        for rid in reversed(seated):
            await self.begin(Intent("resume", race=rid))
            m = self.model
            if m.race_id == rid and m.me in m.players:
                if m.status in ("lobby", "countdown") or m.my_status in (None, "playing"):
                    return True
                if m.status == "running":
                    over.append(rid)
            self.races_left.add(rid)
            self.model = RaceModel(me=m.me)
        if over:
            self.notify(
                f"Your game in race {', '.join(over)} is over; the race goes on for the others "
                "and its ranking will be under 'Your races'.",
                timeout=10,
            )
        return False

    async def choose(self, back_to_race: str | None = None) -> Intent | None:
        """The menu's choice, or None when Esc went back to ``back_to_race``. The race screen
        shows dimmed around the menu: its command line and help (ready, start, leave…) have
        nothing to act on until a race is chosen."""
        self.say("")
        self.redraw()  # "choose a game…" where the board goes, the connection in the header
        cmd = self.query_one("#cmd", Input)
        cmd.display = False
        intent = await self.push_screen_wait(
            MenuScreen(
                self.model.game or self.default_game,
                self.default_seats,
                self.session,
                self.server_url,
                back_to_race,
            )
        )
        cmd.display = True
        cmd.focus()
        return intent

    def next_text(self) -> str:
        return f"ctrl+q: {self.back_to}" if self.back_to else "'menu' for another race, ctrl+q to quit"

    def to_menu(self) -> None:
        """The `menu` command: choose the next race once the player's own game is over (the
        race may go on for the others), or leave the quick-match queue for it."""
        m = self.model
        if self.back_to:
            self.say(
                f"no menu here: ctrl+q goes {self.back_to}"
                + (" (your game and its clock go on meanwhile)" if m.my_status == "playing" else "")
            )
        elif self.session is None:
            self.say("not connected: nothing to choose from (ctrl+q to quit)", error=True)
        elif m.status == "queued":
            self.leave_queue()
        elif refusal := menu_refusal(m, self.daily_race):
            self.say(refusal, error=True)
        else:
            if m.status == "running" and m.race_id:
                self.notify(
                    f"Race {m.race_id} goes on without you: its ranking will be under 'Your races'.",
                    timeout=8,
                )
            self.back_to_menu()

    @work(group="menu")
    async def leave_queue(self) -> None:
        """Leave the quick-match queue (`menu` or `leave` while waiting), then the menu."""
        s, m = self.session, self.model
        assert s is not None
        try:
            await s.request("unqueue", game=m.game)
        except ServerError as e:
            self.say(e.describe(), error=True)
            return
        if self.model is not m or m.status != "queued":
            # Seated while the unqueue was on its way: the race was found first.
            self.say("rivals were found before you left the queue: this is your race", error=True)
            return
        self.back_to_menu()

    @work(group="menu")
    async def back_to_menu(self) -> None:
        m = self.model
        if m.race_id:
            self.races_left.add(m.race_id)  # its late events must not bring it back
        self.model = RaceModel(me=m.me, game=m.game)
        self.selected = None
        self.moves_sent.clear()
        intent = await self.choose(m.race_id)
        if intent is None:
            self.back_to_race(m)
            return
        self.model.game = None
        await self.begin(intent)

    def back_to_race(self, m: RaceModel) -> None:
        """Esc on the menu: the race the `menu` command left, shown again; its events
        count again, and a resync brings what came while the menu was open."""
        assert m.race_id is not None
        self.races_left.discard(m.race_id)
        self.model = m
        self.say(f"back in race {m.race_id} — " + self.next_text())
        self.redraw()
        self.resync()

    async def begin(self, intent: Intent) -> None:
        s = self.session
        assert s is not None
        if intent.mode in ("quick", "daily"):
            self.model.game = intent.game
        try:
            reply = await start(s, intent, left=self.races_left.add)
        except ServerError as e:
            if e.code == "not-logged-in" and intent.rated:
                self.say(rated_needs_account(intent.game, intent.mode) + " — 'menu' to choose again", True)
            elif e.code == "no-bots":
                self.say(f"{NO_BOT} — 'menu' to choose again", error=True)
            else:
                self.say(f"{e.describe()} — type 'menu' to choose again", error=True)
            return
        if self.back_to and intent.mode == "resume":  # played for another app: not "back in"
            self.say(f"race {intent.race} — ctrl+q goes {self.back_to}")
        else:
            self.say(started_text(intent, reply))
        self.model.apply(reply)
        if intent.mode == "daily" or self.model.daily:  # resumed from "Your races" or a relaunch too
            self.daily_race = self.model.race_id
        if intent.mode == "daily" and self.model.status == "running":
            self.resync()  # a resumed attempt: its board
        if intent.mode == "resume" and self.model.me not in self.model.players:
            # `--race` names a race this identity holds no seat in: it is shown, not played.
            self.say(
                f"you hold no seat in race {intent.race}: to take one, solrace play --join {intent.race}",
                error=True,
            )
        self.redraw()

    @work(group="pump")
    async def pump(self) -> None:
        s = self.session
        assert s is not None
        while True:
            ev = await s.events.get()
            self.on_server_event(ev)

    def on_server_event(self, ev: dict[str, Any]) -> None:
        t = ev.get("t")
        race = ev.get("race")
        if isinstance(race, dict):  # a `state` carries the snapshot
            race = race.get("race")
        if isinstance(race, str) and race in self.races_left:
            return
        if t == "error":
            self.say(f"{ev.get('code')}: {ev.get('message', '')}", error=True)
            return
        if t == "disconnected":
            self.say(f"connection lost ({ev.get('reason') or ev.get('code')}); reconnecting…", error=True)
            return
        if t == "reconnected":
            self.say("reconnected")
            self.resync()
            return
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
        elif t == "end":
            self.say(f"race over — {RANKING_KEYS}; " + self.next_text())
        elif t == "rating" and self.model.rating is not None:
            self.say(f"your {rating_change_text(self.model.rating)} — " + self.next_text())
        elif t == "race" and ev.get("status") == "countdown":
            self.say("countdown…")
        if self.model.gap and not getattr(self.session, "handles_gaps", False):
            self.resync()
        self.redraw()

    @work(group="resync")
    async def resync(self) -> None:
        if self._resyncing or not self.model.race_id or self.session is None:
            return
        self._resyncing = True
        try:
            state = await self.session.request(
                "resync", race=self.model.race_id, since=self.model.ver or None
            )
            self.model.apply(state)
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
        if m.board is not None:
            board.show(m.board, self.marks())
        else:
            board.show(None, placeholder=lobby_text(self.model, self.server_url))
        bars = self.query_one("#bars", Static)
        bars.update(bars_text(m, width=bar_width(bars.content_region.width or self.size.width - 2, m)))
        hints = self.query_one("#hints", Static)
        playing = m.status == "running" and m.my_status == "playing"
        hints.display = playing  # else no row of hints: its row goes to the board
        if playing:
            legal = m.legal
            shown = " ".join(legal[:40]) + (" …" if len(legal) > 40 else "")
            hints.update(Text(f"legal ({len(legal)}): {shown}" if legal else "legal: (asking…)"))
        else:
            hints.update("")
        result = self.query_one("#result", Static)
        over = m.status == "finished" and bool(m.ranking)
        self.screen_stack[0].set_class(over, "over")
        if over and self.ranking_hidden != m.race_id:
            result.update(result_text(self.model))
            result.display = True
        else:
            result.display = False
        mine_over = m.my_status not in (None, "playing")
        self.query_one("#cmd", Input).placeholder = placeholder(m.status, self.back_to, mine_over)
        self.refresh_info()

    def refresh_info(self) -> None:
        m = self.model
        s = self.session
        now = s.server_now() if s is not None else 0
        if m.status == "queued":
            self._queued_since = self._queued_since or now
        else:
            self._queued_since = 0
        connection = connection_text(s, self.server_url, self.connect_failed)
        text = info_text(m, now, connection, self._queued_since, self.selected)
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

    def action_complete(self) -> None:
        inp = self.query_one("#cmd", Input)
        typed = inp.value.strip()
        prefix, last = (
            self._completion if self._completion and self._completion[1] == typed else (typed, None)
        )
        nxt = complete(self.model.legal, prefix, last)
        if nxt is None:
            self.say(f"no legal move starts with {prefix!r}" if prefix else "no legal moves")
            return
        self._completion = (prefix, nxt)
        inp.value = nxt
        inp.cursor_position = len(nxt)

    @on(Input.Submitted, "#cmd")
    def submitted(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        event.input.value = ""
        self._completion = None
        if text:
            self.command(text)

    def command(self, text: str) -> None:
        word = text.lower()
        m = self.model
        armed, self.finish_armed = self.finish_armed, None  # a confirmation is the very next command
        prompt = finish_prompt(m, self.daily_race) if word == "finish" and armed != m.race_id else None
        if prompt:
            self.finish_armed = m.race_id
            self.say(prompt)
            return
        if word in ("quit", "exit", "q"):
            self.exit(0)
        elif word in ("help", "?"):
            self.say(self.help_text())
        elif word in ("ready", "unready", "start", "leave", "finish", "resync"):
            self.race_command(word)
        elif word == "hint":
            self.hint()
        elif word == "menu":
            self.to_menu()
        elif m.status != "running":
            self.say(f"the race is {m.status}: moves wait for the start", error=True)
        else:
            self.selected = None
            self.send_move("draw" if word in ("d", "draw") else text)

    @work(group="commands")
    async def race_command(self, word: str) -> None:
        m = self.model
        s = self.session
        if s is not None and word == "leave" and m.status == "queued":
            self.leave_queue()
            return
        if s is None or not m.race_id:
            self.say("no race yet", error=True)
            return
        if word == "resync":
            self.resync()
            return
        try:
            if word in ("ready", "unready"):
                reply = await s.request("ready", race=m.race_id, ready=word == "ready")
            else:
                reply = await s.request(word, race=m.race_id)
            if word == "finish":
                self.say("you declared your game finished")
                m.declared_finished()
            elif word == "leave":
                self.say("you left the race")
            else:
                self.say(f"{word}: ok")
            m.apply(reply)
        except ServerError as e:
            self.say(e.describe(), error=True)
        self.redraw()

    @work(group="commands")
    async def hint(self) -> None:
        if self.session is not None:
            self.say(await ask_hint(self.session, self.model, asking=self.say))

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
                ack = await s.request("move", race=m.race_id, n=m.n, move=move, view=True)
            except ServerError as e:
                self.say(f"{move}: {e.describe()}", error=True)
                if e.code == "out-of-sync":
                    self.resync()
                return
            m.apply(ack)
            rev = ", ".join(f"{p}←{card_text(c).strip()}" for p, c in ack.get("revealed") or [])
            self.say(
                f"{move} ✓"
                + (f"  revealed {rev}" if rev else "")
                + ("  — YOU WON!" if ack.get("won") else "")
            )
            self.redraw()
