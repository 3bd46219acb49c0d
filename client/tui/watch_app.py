"""`solrace watch`: the live race list, then one race's bars and delayed boards.

The server sends boards only while a race runs (docs/protocol.md §4 `spectate`); once it
has ended nothing is secret, so the final boards come from its `replay` (§3): the seed
and every player's moves, re-played here with the rules engine. The `end` may come before
the server reads the race as finished: the replay is asked again for up to FINAL_WAIT_S
(said over the boards), then `f` asks again.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import DataTable, Footer, Static

from protocol.messages import ErrorCode
from protocol.rules.facts import game_name

from .board import parse_view
from .browse import BrowseApp, unless_gone
from .errors import ServerError
from .model import RaceModel
from .recent_text import watched_end_text
from .replay_model import ReplayError, build_replay
from .replay_text import final_boards_late_text, no_final_boards_text, refusal_text
from .session import Session
from .text import clock, plural, ranking_lines
from .watch_final import ASK_AGAIN, FINAL_RETRY_S, FINAL_WAIT_S, FinalBoards, Stage
from .watch_text import LIST_COLUMNS, SPECTATOR_DELAY_MS, boards_delay_text, list_title, race_list
from .widgets import BoardView, bar_width, bars_text


class WatchApp(BrowseApp):
    TITLE = "solrace watch"
    CSS = """
    #list-view { height: 1fr; }
    /* Rows as the title needs: one game's empty list said more than a row holds at 80 columns. */
    #list-title { height: auto; padding: 0 1; }
    #races { height: 1fr; }
    #race-view { display: none; height: 1fr; }
    #race-info { height: 2; padding: 0 1; background: $boost; }
    #race-bars { height: auto; padding: 0 1; border-bottom: solid $primary-darken-2;
                 text-wrap: nowrap; text-overflow: ellipsis; }
    /* Once the race is over the ranking takes the bars' place (the same players, ranked), under
       a rule like the bars': the rows of the bars and of a box go to the boards. */
    #race-result { height: auto; padding: 0 1; display: none; border-top: solid $success; }
    .over #race-bars { display: none; }
    #boards { height: 1fr; }
    .board-title { padding: 0 1; text-style: bold; margin-top: 1; }
    #status { height: auto; max-height: 3; padding: 0 1; }
    """
    BINDINGS = [
        Binding("escape", "back", "back to the list"),
        Binding("r", "refresh", "refresh list"),
        Binding("f", "final_boards_again", "ask again"),
        Binding("a", "analysis", "analysis"),
        # In a race the boards scroll (two boards do not fit 24 rows); priority, since the
        # hidden list table may keep the focus; on the list they are not checked in
        # (`check_action`), and the keys go on to the table's cursor.
        Binding("pageup", "scroll_boards(-1, True)", "boards up", priority=True),
        Binding("pagedown", "scroll_boards(1, True)", "boards down", priority=True),
        Binding("up", "scroll_boards(-1, False)", "boards up", show=False, priority=True),
        Binding("down", "scroll_boards(1, False)", "boards down", show=False, priority=True),
        Binding("ctrl+q", "quit", "quit", priority=True),  # on a modal screen (the menu) too
    ]

    def __init__(
        self,
        connect: Callable[[], Awaitable[Session]],
        game: str | None = None,
        race: str | None = None,
        refresh_s: float = 2.0,
        invite: str | None = None,
        final_wait_s: float = FINAL_WAIT_S,
        server_url: str | None = None,
    ):
        super().__init__(connect, refresh_s)
        self.game = game
        self.initial_race = race
        self.invite = invite  # the initial race's, when it is private
        #: for the commands shown once a race ends (`solrace replay --url …`); None offline
        self.server_url = server_url
        self.races: list[dict[str, Any]] = []
        self.model: RaceModel | None = None
        #: the race whose final boards were asked for; whether they are shown, or why not
        self.final = FinalBoards()
        self.final_wait_s = final_wait_s

    @property
    def final_shown(self) -> bool:
        """Whether the race's final boards are on screen (the late delayed samples wait on it)."""
        return self.final.shown

    def compose(self) -> ComposeResult:
        with Vertical(id="list-view"):
            yield Static("connecting…", id="list-title")
            yield DataTable(id="races", cursor_type="row", zebra_stripes=True)
        with Vertical(id="race-view"):
            yield Static(id="race-info")
            yield Static(id="race-bars")
            yield Static(id="race-result")
            yield VerticalScroll(id="boards")
        yield Static("", id="status")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#races", DataTable)
        table.add_columns(*LIST_COLUMNS)
        self.tick_every(0.5)
        self.main()

    async def open_initial(self) -> bool:
        if not self.initial_race:
            return False
        await self.spectate(self.initial_race)
        return True

    def server_event(self, ev: dict[str, Any]) -> None:
        t = ev.get("t")
        if self.model is not None and t in ("race", "progress", "end", "boards", "state"):
            if t == "boards" and self.final.shown:
                return  # a late delayed sample would cover the final boards
            self.model.apply(ev)
            self.draw_race()
            self.want_final_boards()
            if t in ("end", "race"):
                # the analysis's key: a race that ended while the connection was lost comes as
                # the snapshot of the reconnection's `spectate` (the library's `race` event)
                self.refresh_bindings()

    # -- the footer's keys ----------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Each view hides the other's keys: back and the boards' scrolling on the list,
        refresh in a race; asking for the final boards again only once they did not come."""
        if action == "final_boards_again":
            return self.model is not None and self.model.status == "finished" and self.final.again
        if action == "analysis":
            return self.model is not None and self.model.status == "finished"
        if action in ("back", "scroll_boards"):
            return self.model is not None
        if action == "refresh":
            return self.model is None
        return True

    def action_scroll_boards(self, direction: int, page: bool) -> None:
        """Scroll the boards a page (PgUp, PgDn) or a line (up, down), at once: a smooth scroll
        redraws the whole screen frame by frame (slow over a remote terminal), and a board update
        landing during it could leave it short of its page (a test under load saw none)."""
        boards = self.query_one("#boards", VerticalScroll)
        if page and direction > 0:
            boards.scroll_page_down(animate=False)
        elif page:
            boards.scroll_page_up(animate=False)
        elif direction > 0:
            boards.scroll_down(animate=False)
        else:
            boards.scroll_up(animate=False)

    # -- the list -------------------------------------------------------------

    async def load_list(self) -> None:
        reply = await self.request("races", **({"game": self.game} if self.game else {}))
        if reply is None:
            return
        self.races = list(reply.get("races") or [])
        self.draw_list()

    def draw_list(self, width: int | None = None) -> None:
        what = f" of {game_name(self.game)}" if self.game else ""
        # the table spans the window; a vertical scrollbar may take 2 cells of it
        widths, rows = race_list(self.races, self.now(), (width or self.size.width) - 2)
        self.fill_table(
            "#races",
            zip((r.get("race") for r in self.races), rows, strict=True),
            list_title(len(self.races), what),
            widths,
        )

    def on_resize(self, event: events.Resize) -> None:
        # the app's own size, and its widgets', may not be the new one yet
        if self.model is not None:
            # the bars and the ended race's commands are broken to the width they were drawn at
            self.draw_race(event.size.width)
        elif self.races:
            self.draw_list(event.size.width)

    def action_refresh(self) -> None:
        if self.connect_again():
            return
        if self.model is None:
            self.refresh_list()

    @work(group="list", exclusive=True)
    @unless_gone
    async def refresh_list(self) -> None:
        await self.load_list()

    @on(DataTable.RowSelected, "#races")
    def row_selected(self, event: DataTable.RowSelected) -> None:
        if event.row_key.value:
            self.start_spectating(event.row_key.value)

    @work(group="spectate", exclusive=True)
    @unless_gone
    async def start_spectating(self, race: str) -> None:
        await self.spectate(race)

    # -- one race ---------------------------------------------------------------

    async def spectate(self, race: str) -> None:
        invite = {"invite": self.invite} if self.invite and race == self.initial_race else {}
        snap = await self.request("spectate", f"spectate {race}", race=race, **invite)
        if snap is None:
            return
        self.model = RaceModel(me=None)
        self.model.apply(snap)
        self.final = FinalBoards()
        self.query_one("#list-view").display = False
        self.query_one("#race-view").display = True
        self.query_one("#race-result").display = False
        self.say("")  # the footer has the race's keys
        self.refresh_bindings()
        self.draw_race()
        self.want_final_boards()  # it may have ended already

    async def action_back(self) -> None:
        if self.model is None:
            return
        race = self.model.race_id
        self.model = None
        self.query_one("#race-view").display = False
        self.query_one("#list-view").display = True
        self.query_one("#boards", VerticalScroll).remove_children()
        self.say("")
        self.refresh_bindings()
        self.unspectate(race)
        self.refresh_list()

    @work(group="unspectate")
    @unless_gone
    async def unspectate(self, race: str | None) -> None:
        if self.session is not None and race:
            try:
                await self.session.request("unspectate", race=race)
            except ServerError:
                pass

    @property
    def spectator_delay_ms(self) -> int:
        """How late the boards come: the server's `SPECTATOR_DELAY` (its welcome's limits),
        else the documented one."""
        delay = getattr(self.session, "spectator_delay_ms", None)
        return delay if isinstance(delay, int) else SPECTATOR_DELAY_MS

    def tick(self) -> None:
        if self.model is not None:
            self.draw_info()
        elif self.races:
            self.draw_list()

    def draw_info(self) -> None:
        m = self.model
        if m is None:
            return
        now = self.session.server_now() if self.session else 0
        parts = [f"[b]{game_name(m.game or '')}[/b]", f"race {m.race_id}", m.status]
        cd = m.countdown_ms(now)
        if cd is not None:
            parts.append(f"starts in {cd / 1000:.1f}s")
        rem = m.remaining_ms(now)
        if rem is not None and m.status == "running":
            parts.append(f"{clock(rem)} left")
        ago = f"boards as of {max(0, now - m.boards_at) / 1000:.0f}s ago" if m.boards_at else ""
        if self.final.stage is Stage.SHOWN:
            delay = "final boards (the race is over: every card shown)"
        elif self.final.stage is Stage.WAITING:
            delay = "final boards: the server is still closing the race; asking again…"
        elif self.final.stage is Stage.MISSING:
            delay = " · ".join(filter(None, [self.final.missing, ago]))
        elif m.status == "finished":
            delay = "final boards: loading…"
        else:
            delay = boards_delay_text(
                self.spectator_delay_ms, (now - m.boards_at) / 1000 if m.boards_at else None
            )
        self.query_one("#race-info", Static).update(" · ".join(parts) + "\n" + delay)

    def draw_race(self, columns: int | None = None) -> None:
        """The race's view; ``columns``: the window's width, when the app's size is not yet the
        new one (its resize handler)."""
        m = self.model
        if m is None:
            return
        self.draw_info()
        bars = self.query_one("#race-bars", Static)
        # The bars and the ranking span the window, less their padding. Not their own width:
        # after a resize it is the old one until they are laid out again, and the final boards
        # drawn in between broke the commands to it, where they stayed.
        width = (columns or self.size.width) - 2
        bars.update(bars_text(m, width=bar_width(width, m)))
        result = self.query_one("#race-result", Static)
        ranking = m.ranking if m.status == "finished" else None
        self.query_one("#race-view").set_class(bool(ranking), "over")
        if ranking:
            t = Text("Final ranking\n", style="bold")
            t.append("\n".join(ranking_lines(ranking)) + "\n")
            ok = m.commitment_verified
            t.append(f"seed {m.seed} ")
            t.append(
                "✓ matches the deal's fingerprint" if ok else "✗ does not match the deal's fingerprint",
                style="green" if ok else "bold red",
            )
            if self.server_url and not m.private:
                t.append("\n" + watched_end_text(self.server_url, m.race_id or "", width), style="dim")
            result.update(t)
            result.display = True
        boards = self.query_one("#boards", VerticalScroll)
        for pid, (n, view) in m.boards.items():
            wid = "b-" + "".join(ch if ch.isalnum() else "_" for ch in str(pid))
            name = m.players[pid].name if pid in m.players else pid
            try:
                board = parse_view(view)
            except ValueError:
                continue
            title = f"{name} · {plural(n, 'move')} · {board.home}/{m.total or board.total} home"
            existing = boards.query(f"#{wid}")
            if existing:
                existing.first(BoardView).show(board)
                boards.query_one(f"#t{wid}", Static).update(title)
            else:
                boards.mount(Static(title, id=f"t{wid}", classes="board-title"))
                bv = BoardView(id=wid)
                boards.mount(bv)
                bv.show(board)

    # -- the final boards -------------------------------------------------------------

    def want_final_boards(self) -> None:
        m = self.model
        if m is None or m.status != "finished" or not m.race_id or m.race_id == self.final.race:
            return
        self.final = FinalBoards(m.race_id, Stage.ASKING)
        self.load_final_boards(m.race_id)

    def action_final_boards_again(self) -> None:
        if self.model is None or not self.final.again:
            return
        self.final = FinalBoards()
        self.say("")
        self.refresh_bindings()
        self.want_final_boards()

    @work(group="final", exclusive=True)
    @unless_gone
    async def load_final_boards(self, race: str) -> None:
        if self.session is None:
            return
        invite = {"invite": self.invite} if self.invite and race == self.initial_race else {}
        give_up_at = time.monotonic() + self.final_wait_s
        pause, most = FINAL_RETRY_S
        while True:
            try:
                reply = await self.session.request("replay", race=race, **invite)
                break
            except ServerError as e:
                if self.model is None or self.model.race_id != race:
                    return  # left meanwhile: its final boards are no longer wanted
                # the race's `end` came, but the server is still closing it: ask again, a while
                ended = e.code == ErrorCode.RACE_NOT_OVER and self.model.status == "finished"
                if ended and time.monotonic() + pause <= give_up_at:
                    self.set_final(race, Stage.WAITING)
                    self.draw_info()
                    await asyncio.sleep(pause)
                    pause = min(2 * pause, most)
                    continue
                if e.code == ErrorCode.UNKNOWN_TYPE:  # offline: the last boards hide nothing
                    self.no_final_boards(race, "no final boards (no replays here)", "")
                elif ended:
                    why = final_boards_late_text(race, self.final_wait_s)
                    self.no_final_boards(race, no_final_boards_text(e.code), why, again=True)
                else:  # in words, as `solrace replay` says them: no code
                    again = e.code in ASK_AGAIN
                    why = refusal_text(e.code, race, e.message, flags=False) + (
                        " Press f to ask again." if again else ""
                    )
                    self.no_final_boards(race, no_final_boards_text(e.code, e.message), why, again=again)
                return
        self.set_final(race, Stage.ASKING)
        try:
            replay = build_replay(reply)
        except ReplayError as e:
            self.no_final_boards(race, "no final boards (the replay does not play)", f"final boards: {e}")
            return
        m = self.model
        if m is None or m.race_id != race:
            return  # left meanwhile
        m.boards = {p.player: (p.frames[-1].n, p.frames[-1].view) for p in replay.players}
        self.set_final(race, Stage.SHOWN)
        self.draw_race()
        # The final boards open at their top, under the ranking that took the bars' place: the
        # live view's scroll (a line count into boards laid out under other rows) would open
        # them part-way down a board. At once, not after the next refresh: a key pressed
        # meanwhile scrolls the final boards, from their top.
        self.query_one("#boards", VerticalScroll).scroll_home(animate=False, immediate=True)

    def action_analysis(self) -> None:
        m = self.model
        if m is not None and m.status == "finished" and m.race_id:
            self.show_analysis(m.race_id, m.game)

    @work(group="analysis", exclusive=True)
    @unless_gone
    async def show_analysis(self, race: str, game: str | None) -> None:
        """Where each player's win was lost (the server's solver), over the race."""
        from .analysis import show_analysis

        if self.session is None:
            return
        invite = self.invite if self.invite and race == self.initial_race else None
        await show_analysis(self, self.session, race, game, self.say, invite=invite)

    def set_final(self, race: str, stage: Stage) -> None:
        """``race``'s final boards are at ``stage``: nothing changes once the watcher moved on."""
        if self.model is not None and self.model.race_id == race:
            self.final = self.final.to(stage)

    def no_final_boards(self, race: str, missing: str, error: str, again: bool = False) -> None:
        """``missing`` over the boards (``no final boards (why)``), ``error`` on the message line;
        ``again``: asking again may get them (the `f` key)."""
        if self.model is None or self.model.race_id != race:
            return
        self.final = self.final.lacking(missing, again)
        if error:
            self.say(error, error=True)
        self.refresh_bindings()
        self.draw_info()
