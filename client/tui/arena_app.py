"""`solrace arena`: the arena list, then one arena: join, withdraw, berserk, live standings.

The standings are watched (`arena_standings` with `watch: true`): every
`arena_update` redraws them. A paired player's race comes as its `race`
snapshot (an arena race already under way, named by the `arena` reply, is asked
for with `resync`); the status line names it, `b` berserks it while it counts
down, and `p` plays it: the app exits with :attr:`ArenaApp.play_next` set, and
`solrace arena` (client/cli/arena.py) runs the play app on that race, then opens
the arena again.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import DataTable, Footer, Static

from .arena_view import (
    LIST_COLUMNS,
    OVER_FOR_ME,
    arena_header,
    arena_keys,
    arena_list,
    arenas_title,
    berserk_text,
    joined_said,
    others_in,
    paired_line,
    races_line,
    standings_lines,
    standings_title,
    winners_line,
)
from .browse import BrowseApp, unless_gone
from .errors import ServerError
from .session import Session

TOP, AROUND = 10, 3

#: The status line in an arena once it is over: none of its keys acts.
ARENA_OVER = "this arena is over: nobody is paired any more · Esc: back to the list"


@dataclass(frozen=True)
class PlayNext:
    """What `p` asks for: play ``race``, then come back to ``arena``."""

    arena: str
    race: str


class ArenaApp(BrowseApp):
    TITLE = "solrace arena"
    REFRESH_GROUPS = ("list", "arena")
    CSS = """
    #list-view { height: 1fr; }
    #list-title { height: 1; padding: 0 1; }
    #arenas { height: 1fr; }
    #arena-view { display: none; height: 1fr; }
    #arena-info { height: auto; padding: 0 1; background: $boost; }
    #arena-races { height: auto; padding: 0 1; }
    #arena-winners { height: auto; padding: 0 1; color: $success; }
    #standings-title { height: 1; padding: 0 1; text-style: bold; margin-top: 1; }
    #standings { height: 1fr; padding: 0 1; }
    #status { height: auto; max-height: 3; padding: 0 1; }
    """
    BINDINGS = [
        Binding("escape", "back", "back"),
        Binding("r", "refresh", "refresh"),
        Binding("j", "join", "join"),
        Binding("w", "withdraw", "withdraw"),
        Binding("b", "berserk", "berserk"),
        Binding("p", "play", "play your race"),
        Binding("ctrl+q", "quit", "quit", priority=True),  # on a modal screen (the menu) too
    ]

    def __init__(
        self, connect: Callable[[], Awaitable[Session]], arena: str | None = None, refresh_s: float = 5.0
    ) -> None:
        super().__init__(connect, refresh_s)
        self.initial_arena = arena
        self.arenas: list[dict[str, Any]] = []
        self.arena_id: str | None = None  # the arena shown, None on the list
        self.data: dict[str, Any] = {}  # its `arena` reply
        self.board: dict[str, Any] = {}  # its latest standings (reply or `arena_update`)
        #: my arena race, not over for me (from its snapshot, or a `resync` of the `arena`
        #: reply's race); whether it has started, and when it starts
        self.paired: str | None = None
        self.paired_running = False
        self.paired_starts: int | None = None
        #: the races whose state is known (seen, or asked for): not asked for again
        self.known_races: set[str] = set()
        #: the races the shown arena's `arena` reply named as mine: a snapshot of any other
        #: race of mine (another arena's, one played from another terminal) is not this one's
        self.arena_races: set[str] = set()
        #: set by `p`: the race to play once the app has exited (client/cli/arena.py)
        self.play_next: PlayNext | None = None
        self.shown_bindings: tuple[bool | None, ...] = ()

    def compose(self) -> ComposeResult:
        with Vertical(id="list-view"):
            yield Static("connecting…", id="list-title")
            yield DataTable(id="arenas", cursor_type="row", zebra_stripes=True)
        with Vertical(id="arena-view"):
            yield Static(id="arena-info")
            yield Static(id="arena-races")
            yield Static(id="arena-winners")
            yield Static(id="standings-title")
            yield Static(id="standings")
        yield Static("", id="status")
        # At 80 columns the arena's keys take the whole row: the palette's key (ctrl+p, which
        # still opens it) would cover the last of them.
        yield Footer(show_command_palette=False)

    def on_mount(self) -> None:
        self.query_one("#arenas", DataTable).add_columns(*LIST_COLUMNS)
        self.tick_every(1.0)
        self.main()

    async def open_initial(self) -> bool:
        if not self.initial_arena:
            return False
        await self.open_arena(self.initial_arena)
        return True

    def server_event(self, ev: dict[str, Any]) -> None:
        t = ev.get("t")
        me = self.session.player if self.session else None
        if t == "arena_update" and ev.get("arena") == self.arena_id:
            self.board = ev
            self.draw_arena()
        elif t == "race" and self.arena_id is not None:  # on the list, `learn_race` will tell
            self.seen_race(ev)
        elif t == "state" and self.arena_id is not None and isinstance(ev.get("race"), dict):
            self.seen_race(ev["race"])
        elif self.paired is None or ev.get("race") != self.paired:
            return
        elif t == "start":
            self.race_started()
        elif t == "end" or (t == "progress" and ev.get("player") == me and ev.get("status") in OVER_FOR_ME):
            self.race_over()

    def seen_race(self, snap: dict[str, Any]) -> None:
        """A snapshot of a race of mine: paired (a new race), started, or over for me."""
        me = self.session.player if self.session else None
        mine = next((p for p in snap.get("players") or [] if p.get("player") == me), None)
        race = snap.get("race")
        if mine is None or not race:
            return
        if race != self.paired and race not in self.arena_races:
            if snap.get("arena") != self.arena_id:
                # Another race of mine (or a server that does not name its arena: the
                # periodic `arena` reply names the race then, `learn_race`).
                return
            self.arena_races.add(race)
        self.known_races.add(race)
        status = snap.get("status")
        if status == "finished" or mine.get("status") in OVER_FOR_ME:
            if race == self.paired:
                self.race_over()
        elif race != self.paired:
            self.paired, self.paired_running = race, status == "running"
            self.paired_starts = snap.get("starts_at")
            self.show_paired()
            self.refresh_arena()
        elif status == "running":
            self.race_started()

    def race_started(self) -> None:
        if self.paired is not None and not self.paired_running:
            self.paired_running = True
            self.show_paired()

    def race_over(self) -> None:
        race, self.paired, self.paired_running, self.paired_starts = self.paired, None, False, None
        if self.arena_id is not None:
            self.say(f"race {race}: over for you")
        self.sync_bindings()
        self.refresh_arena()

    def show_paired(self) -> None:
        """The status line says what the paired race asks of you now (in an arena)."""
        if self.paired is not None and self.arena_id is not None:
            self.say(paired_line(self.paired, self.paired_running, self.arena_berserk()))
        self.sync_bindings()

    def learn_race(self, data: dict[str, Any]) -> None:
        """The `arena` reply names my race being played: one not seen yet (paired before this
        app connected, e.g. while its player played the last one) is asked for."""
        race = data.get("race")
        if race:
            self.arena_races.add(race)
        if race and race != self.paired and race not in self.known_races:
            self.known_races.add(race)
            self.resync_race(race)

    @work(group="resync")
    @unless_gone
    async def resync_race(self, race: str) -> None:
        if self.session is None:
            return
        try:
            state = await self.session.request("resync", race=race)
        except ServerError:
            return
        if isinstance(state.get("race"), dict):
            self.seen_race(state["race"])

    def arena_berserk(self) -> bool:
        return bool((self.data.get("arena") or {}).get("berserk"))

    # -- the footer's keys ----------------------------------------------------------

    #: The actions whose keys depend on the view (checked by `check_action`).
    VIEW_ACTIONS = ("back", "join", "withdraw", "berserk", "play")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """On the list, the one arena's keys are hidden; in an arena, a key that cannot act
        now (join once joined, berserk with no race counting down) is shown disabled, and
        `p` (play your race) is shown only while you have a race to play."""
        if action not in self.VIEW_ACTIONS:
            return True
        if self.arena_id is None:
            return False
        if action in ("join", "withdraw", "berserk") and self.arena_over():
            return False  # nothing to join, leave or berserk any more
        joined = bool(self.data.get("joined"))
        if action == "join":
            return None if joined else True
        if action == "withdraw":
            return True if joined else None
        if action == "berserk":
            if not self.arena_berserk():
                return False
            return True if self.paired and not self.paired_running else None
        if action == "play":
            return self.paired is not None
        return True

    def arena_over(self) -> bool:
        """The open arena has ended (its last races may still be finishing): it pairs nobody."""
        arena = self.data.get("arena") or {}
        ends = arena.get("ends")
        return arena.get("status") == "over" or (isinstance(ends, int) and self.now() >= ends)

    def sync_bindings(self) -> None:
        # Only on a change: a refresh recomposes the footer, and the arena redraws every second.
        shown = tuple(self.check_action(a, ()) for a in self.VIEW_ACTIONS)
        if shown != self.shown_bindings:
            self.shown_bindings = shown
            self.refresh_bindings()

    # -- the list -------------------------------------------------------------

    async def load_list(self) -> None:
        reply = await self.request("arenas")
        if reply is None:
            return
        self.arenas = list(reply.get("arenas") or [])
        self.draw_list()

    def draw_list(self, width: int | None = None) -> None:
        # the table spans the window; a vertical scrollbar may take 2 cells of it
        widths, rows = arena_list(self.arenas, self.now(), (width or self.size.width) - 2)
        self.fill_table(
            "#arenas",
            zip((a.get("id") for a in self.arenas), rows, strict=True),
            arenas_title(len(self.arenas)),
            widths,
        )

    def on_resize(self, event: events.Resize) -> None:
        # the app's own size may not be the new one yet
        if self.arena_id is None and self.arenas:
            self.draw_list(event.size.width)
        elif self.arena_id is not None:
            self.draw_arena(event.size.width)

    @on(DataTable.RowSelected, "#arenas")
    def row_selected(self, event: DataTable.RowSelected) -> None:
        if event.row_key.value:
            self.start_opening(event.row_key.value)

    @work(group="open", exclusive=True)
    @unless_gone
    async def start_opening(self, arena: str) -> None:
        await self.open_arena(arena)

    # -- one arena ----------------------------------------------------------------

    async def open_arena(self, arena: str) -> None:
        data = await self.request("arena", f"arena {arena}", arena=arena)
        if data is None:
            return
        board = await self.request(
            "arena_standings", f"arena {arena}", arena=arena, top=TOP, around=AROUND, watch=True
        )
        if board is None:
            return
        self.data, self.board = data, board
        if arena != self.arena_id:
            self.arena_races.clear()
        self.arena_id = arena
        self.query_one("#list-view").display = False
        self.query_one("#arena-view").display = True
        if self.paired is not None:
            self.show_paired()
        elif self.arena_over():
            self.say(ARENA_OVER)
        else:
            self.say(arena_keys(self.arena_berserk()))
        self.draw_arena()
        self.learn_race(data)

    def draw_arena(self, width: int | None = None) -> None:
        if self.arena_id is None or not self.query("#arena-info"):
            return
        me = self.session.player if self.session else None
        # less the padding; Text: an arena's name is not markup
        # my race as this app knows it (the `arena` reply may be older: a race just over)
        mine = {"race": self.paired}
        alone = others_in(self.board, me) == 0
        header = arena_header({**self.data, **mine}, self.now(), (width or self.size.width) - 2, alone)
        berserk = berserk_text(self.data, self.now())  # what the word means, where it is met
        self.query_one("#arena-info", Static).update(Text(header + (f"\n{berserk}" if berserk else "")))
        self.query_one("#arena-races", Static).update(races_line({**self.data, **mine, **self._featured()}))
        winners = winners_line(self.board)
        self.query_one("#arena-winners", Static).update(winners or "")
        self.query_one("#arena-winners").display = bool(winners)  # no empty row: the standings' room
        self.query_one("#standings-title", Static).update(standings_title(self.board))
        standings = self.query_one("#standings", Static)
        rows = standings.size.height or None  # laid out: the rows it has (mine kept in them)
        standings.update("\n".join(standings_lines(self.board, me, rows)))
        status = self.query_one("#status", Static)
        keys = arena_keys(self.arena_berserk())
        if self.paired is None and self.arena_over() and str(status.render()) == keys:
            self.say(ARENA_OVER)  # it ended while open: its keys act no more
        self.sync_bindings()

    def _featured(self) -> dict[str, Any]:
        # the live updates carry the featured race; the `arena` reply may be older
        return {"featured": self.board["featured"]} if "featured" in self.board else {}

    def tick(self) -> None:
        # the start event may be late: at the start time the countdown is over
        if self.paired_starts is not None and not self.paired_running and self.now() >= self.paired_starts:
            self.race_started()
        if self.arena_id is not None:
            self.draw_arena()

    def action_refresh(self) -> None:
        if self.connect_again():
            return
        if self.arena_id is None:
            self.refresh_list()
        else:
            self.refresh_arena()

    @work(group="list", exclusive=True)
    @unless_gone
    async def refresh_list(self) -> None:
        await self.load_list()

    @work(group="arena", exclusive=True)
    @unless_gone
    async def refresh_arena(self) -> None:
        if self.arena_id is None:
            return
        data = await self.request("arena", arena=self.arena_id)
        if data is not None:
            self.data = data
            self.draw_arena()
            self.learn_race(data)

    async def _arena_request(self, t: str, **fields: Any) -> dict[str, Any] | None:
        if self.arena_id is None:
            return None
        return await self.request(t, arena=self.arena_id, **fields)

    async def action_join(self) -> None:
        reply = await self._arena_request("arena_join")
        if reply is not None:
            self.data = reply
            me = self.session.player if self.session else None
            self.say(joined_said(reply, self.now(), others_in(self.board, me) == 0))
            self.draw_arena()

    async def action_withdraw(self) -> None:
        reply = await self._arena_request("arena_withdraw")
        if reply is not None:
            self.data = reply
            self.say("withdrawn: your points stay; a race in progress still counts")
            self.draw_arena()

    async def action_berserk(self) -> None:
        race = self.paired
        if race is None:
            self.say("no race to berserk: you are not paired", error=True)
            return
        if self.paired_running:
            self.say(f"race {race} has started: too late to berserk it", error=True)
            return
        if await self._arena_request("arena_berserk", race=race) is not None:
            self.say(f"berserk: half the clock in race {race}, one more point if you win it")

    def action_play(self) -> None:
        """Exit, naming the race to play (client/cli/arena.py plays it, then reopens the arena)."""
        if self.arena_id is None or self.paired is None:
            self.say("no race to play: you are not paired", error=True)
            return
        self.play_next = PlayNext(self.arena_id, self.paired)
        self.exit(0)

    async def action_back(self) -> None:
        if self.arena_id is None:
            return
        arena, self.arena_id = self.arena_id, None
        if self.session is not None:
            try:
                await self.session.request("arena_unwatch", arena=arena)
            except ServerError:
                pass
        self.query_one("#arena-view").display = False
        self.query_one("#list-view").display = True
        self.query_one("#arenas", DataTable).focus()  # Enter and the arrows act on the list
        self.say("")
        self.sync_bindings()
        await self.load_list()
