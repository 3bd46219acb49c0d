"""The terminal replay viewer: a finished race's deal, move by move, one player at a time.

:class:`ReplayScreen` shows a :class:`~client.tui.replay_model.RaceReplay` (built beforehand
from the server's `replay` reply, so every position is at hand): the board as
client/tui/board.py draws it, with the pile the move landed on marked; the players; and a
line with the move, cards home and the time into the race (client/tui/replay_text.py).
Keys: →/n and ←/p step, Home/End jump to the deal and the end, Tab (shift+Tab) and 1…9
switch players at the same moment of the race, space auto-plays at a steady pace, ↑/↓ and
PgUp/PgDn scroll a board taller than the terminal, Esc leaves. `solrace replay` runs it as
:class:`ReplayApp`; the "Your races" screen of `solrace play` pushes it over itself.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Static

from .board import Marks, parse_view
from .replay_model import Cursor, RaceReplay, at_end, frame, jump, landed_on, step, switch
from .replay_text import AUTOPLAY_S, HELP_TEXT, players_text, status_text, title_text
from .widgets import BoardView


class ReplayScreen(Screen[None]):
    """One race's replay; dismissed with Esc (or q)."""

    DEFAULT_CSS = """
    ReplayScreen { layout: vertical; }
    #replay-title { height: auto; padding: 0 1; background: $boost; }
    #replay-players { height: auto; padding: 0 1; }
    #replay-board-scroll { height: 1fr; overflow: auto auto; }
    #replay-status { height: auto; padding: 0 1; border-top: solid $primary-darken-2; }
    #replay-help { height: auto; padding: 0 1; color: $text-muted; }
    """
    # Priority: the board's scroll container binds the arrows and Home/End for itself.
    BINDINGS = [
        Binding("right,n", "step(1)", "next", priority=True),
        Binding("left,p", "step(-1)", "back", priority=True),
        Binding("home", "jump(False)", "the deal", priority=True),
        Binding("end", "jump(True)", "the end", priority=True),
        Binding("tab", "switch(1)", "next player", priority=True),
        Binding("shift+tab", "switch(-1)", "previous player", priority=True),
        *(Binding(str(k), f"pick({k - 1})", show=False, priority=True) for k in range(1, 10)),
        Binding("space", "autoplay", "auto-play", priority=True),
        # The board's scroll area takes no focus: a board taller than the terminal scrolls here.
        Binding("up,k", "scroll(-1)", show=False, priority=True),
        Binding("down,j", "scroll(1)", show=False, priority=True),
        Binding("pageup", "scroll(-10)", show=False, priority=True),
        Binding("pagedown", "scroll(10)", show=False, priority=True),
        Binding("escape,q", "back", "back", priority=True),
    ]

    def __init__(self, replay: RaceReplay, player: int = 0, pace_s: float = AUTOPLAY_S):
        super().__init__()
        self.replay = replay
        self.cursor = Cursor(player=min(max(player, 0), len(replay.players) - 1))
        self.pace_s = pace_s
        self.autoplay: Timer | None = None

    def compose(self) -> ComposeResult:
        yield Static(title_text(self.replay), id="replay-title")
        yield Static(id="replay-players")
        with VerticalScroll(id="replay-board-scroll", can_focus=False):
            yield BoardView(id="replay-board")
        yield Static(id="replay-status")
        yield Static(HELP_TEXT, id="replay-help")

    def on_mount(self) -> None:
        self.draw()

    @property
    def playing(self) -> bool:
        return self.autoplay is not None

    def draw(self) -> None:
        shown = frame(self.replay, self.cursor)
        # The pile the move landed on is marked, so that a step can be followed on the board.
        dst = landed_on(shown.move)
        marks = Marks(targets=frozenset({dst})) if dst else None
        self.query_one("#replay-board", BoardView).show(parse_view(shown.view), marks)
        self.query_one("#replay-players", Static).update(players_text(self.replay, self.cursor))
        line = status_text(self.replay, self.cursor) + (" · ▶ auto-play" if self.playing else "")
        self.query_one("#replay-status", Static).update(Text(line))

    def move_to(self, cursor: Cursor, *, stop: bool = True) -> None:
        """Show ``cursor``; a key that moves by hand stops the auto-play."""
        if stop:
            self.stop_autoplay()
        self.cursor = cursor
        self.draw()

    def action_step(self, delta: int) -> None:
        self.move_to(step(self.replay, self.cursor, delta))

    def action_jump(self, end: bool) -> None:
        self.move_to(jump(self.replay, self.cursor, end))

    def action_switch(self, delta: int) -> None:
        # Switching players keeps the auto-play going: the race goes on, seen from another seat.
        self.move_to(switch(self.replay, self.cursor, self.cursor.player + delta), stop=False)

    def action_pick(self, player: int) -> None:
        if player < len(self.replay.players):
            self.move_to(switch(self.replay, self.cursor, player), stop=False)

    def action_scroll(self, lines: int) -> None:
        board = self.query_one("#replay-board-scroll", VerticalScroll)
        board.scroll_to(y=board.scroll_y + lines, animate=False)

    def action_autoplay(self) -> None:
        if self.playing:
            self.stop_autoplay()
            self.draw()
            return
        if at_end(self.replay, self.cursor):  # played out: start over from the deal
            self.cursor = jump(self.replay, self.cursor, False)
        self.autoplay = self.set_interval(self.pace_s, self.tick)
        self.draw()

    def tick(self) -> None:
        self.cursor = step(self.replay, self.cursor, 1)
        if at_end(self.replay, self.cursor):  # the last move shown: the auto-play is done
            self.stop_autoplay()
        self.draw()

    def stop_autoplay(self) -> None:
        if self.autoplay is not None:
            self.autoplay.stop()
            self.autoplay = None

    def action_back(self) -> None:
        self.stop_autoplay()
        self.dismiss(None)


class ReplayApp(App[int]):
    """`solrace replay`: the viewer on its own; leaving it quits."""

    TITLE = "solrace replay"

    def __init__(self, replay: RaceReplay, player: int = 0, pace_s: float = AUTOPLAY_S):
        super().__init__()
        self.replay = replay
        self.player = player
        self.pace_s = pace_s

    def on_mount(self) -> None:
        self.push_screen(ReplayScreen(self.replay, self.player, self.pace_s), callback=lambda _: self.exit(0))
