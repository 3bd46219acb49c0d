"""`solrace watch`: the live race list, then one race's bars and delayed boards."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import DataTable, Footer, Static

from protocol.rules.facts import game_name

from .board import parse_view
from .browse import BrowseApp
from .model import RaceModel
from .session import ServerError, Session
from .text import clock, ranking_lines
from .widgets import BoardView, bars_text


def race_row(r: dict[str, Any], now: int) -> tuple[str, ...]:
    """One line of the race list (plain function, for tests)."""
    total = r.get("total") or 0
    players = ", ".join(f"{p.get('name')} {p.get('home', 0)}/{total}" for p in r.get("players") or [])
    status = r.get("status", "")
    if status == "countdown" and r.get("starts_at"):
        when = f"starts in {max(0, r['starts_at'] - now) / 1000:.0f}s"
    elif status == "running" and r.get("deadline"):
        when = clock(r["deadline"] - now) + " left"
    else:
        when = ""
    return (
        r.get("race", ""),
        game_name(r.get("game", "")),
        status,
        when,
        players,
        str(r.get("spectators", 0)),
    )


class WatchApp(BrowseApp):
    TITLE = "solrace watch"
    CSS = """
    #list-view { height: 1fr; }
    #list-title { height: 1; padding: 0 1; }
    #races { height: 1fr; }
    #race-view { display: none; height: 1fr; }
    #race-info { height: 2; padding: 0 1; background: $boost; }
    #race-bars { height: auto; padding: 0 1; border-bottom: solid $primary-darken-2; }
    #race-result { height: auto; padding: 0 1; display: none; border: round $success; }
    #boards { height: 1fr; }
    .board-title { padding: 0 1; text-style: bold; margin-top: 1; }
    #status { height: 1; padding: 0 1; }
    """
    BINDINGS = [
        Binding("escape", "back", "back to the list"),
        Binding("r", "refresh", "refresh list"),
        Binding("ctrl+q", "quit", "quit"),
    ]

    def __init__(
        self,
        connect: Callable[[], Awaitable[Session]],
        game: str | None = None,
        race: str | None = None,
        refresh_s: float = 2.0,
        invite: str | None = None,
    ):
        super().__init__(connect, refresh_s)
        self.game = game
        self.initial_race = race
        self.invite = invite  # the initial race's, when it is private
        self.races: list[dict[str, Any]] = []
        self.model: RaceModel | None = None

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
        table.add_columns("race", "game", "status", "clock", "players", "spectators")
        self.set_interval(0.5, self.tick)
        self.main()

    async def open_initial(self) -> bool:
        if not self.initial_race:
            return False
        await self.spectate(self.initial_race)
        return True

    def server_event(self, ev: dict[str, Any]) -> None:
        if self.model is not None and ev.get("t") in ("race", "progress", "end", "boards", "state"):
            self.model.apply(ev)
            self.draw_race()

    # -- the list -------------------------------------------------------------

    async def load_list(self) -> None:
        reply = await self.request("races", **({"game": self.game} if self.game else {}))
        if reply is None:
            return
        self.races = list(reply.get("races") or [])
        self.draw_list()

    def draw_list(self) -> None:
        now = self.now()
        what = f" of {game_name(self.game)}" if self.game else ""
        self.fill_table(
            "#races",
            ((r.get("race"), race_row(r, now)) for r in self.races),
            f"[b]{len(self.races)} live public race(s){what}[/b] — Enter to spectate, r to refresh, ctrl+q to quit",
        )

    def action_refresh(self) -> None:
        if self.model is None:
            self.refresh_list()

    @work(group="list", exclusive=True)
    async def refresh_list(self) -> None:
        await self.load_list()

    @on(DataTable.RowSelected, "#races")
    def row_selected(self, event: DataTable.RowSelected) -> None:
        if event.row_key.value:
            self.start_spectating(event.row_key.value)

    @work(group="spectate", exclusive=True)
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
        self.query_one("#list-view").display = False
        self.query_one("#race-view").display = True
        self.say("Esc: back to the list")
        self.draw_race()

    async def action_back(self) -> None:
        if self.model is None:
            return
        race = self.model.race_id
        self.model = None
        self.query_one("#race-view").display = False
        self.query_one("#list-view").display = True
        self.query_one("#boards", VerticalScroll).remove_children()
        self.unspectate(race)
        self.refresh_list()

    @work(group="unspectate")
    async def unspectate(self, race: str | None) -> None:
        if self.session is not None and race:
            try:
                await self.session.request("unspectate", race=race)
            except ServerError:
                pass

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
        delay = (
            f"boards as of {max(0, now - m.boards_at) / 1000:.0f}s ago" if m.boards_at else "boards: waiting…"
        )
        self.query_one("#race-info", Static).update(" · ".join(parts) + "\n" + delay + "   (Esc: back)")

    def draw_race(self) -> None:
        m = self.model
        if m is None:
            return
        self.draw_info()
        self.query_one("#race-bars", Static).update(bars_text(m))
        result = self.query_one("#race-result", Static)
        if m.status == "finished" and m.ranking:
            t = Text("Final ranking\n", style="bold")
            t.append("\n".join(ranking_lines(m.ranking)) + "\n")
            ok = m.commitment_verified
            t.append(f"seed {m.seed} ")
            t.append(
                "✓ matches the commitment" if ok else "✗ does not match the commitment",
                style="green" if ok else "bold red",
            )
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
            title = f"{name} · {n} moves · {board.home}/{m.total or board.total} home"
            existing = boards.query(f"#{wid}")
            if existing:
                existing.first(BoardView).show(board)
                boards.query_one(f"#t{wid}", Static).update(title)
            else:
                boards.mount(Static(title, id=f"t{wid}", classes="board-title"))
                bv = BoardView(id=wid)
                boards.mount(bv)
                bv.show(board)
