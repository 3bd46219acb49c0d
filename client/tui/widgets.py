"""Thin textual widgets over the plain functions of ``client.tui.board``, and ``leave_screen``,
how the menu's screens close."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import RadioSet

from .board import Board, Canvas, Marks, layout_board
from .model import PlayerRow, RaceModel
from .text import marked_name, progress_line


def canvas_text(canvas: Canvas) -> Text:
    """Paint a canvas as one Rich Text (later cells overwrite earlier ones)."""
    w, h = canvas.width, canvas.height
    chars = [[" "] * w for _ in range(h)]
    styles: list[list[str]] = [[""] * w for _ in range(h)]
    for c in canvas.cells:
        for i, ch in enumerate(c.text):
            chars[c.y][c.x + i] = ch
            styles[c.y][c.x + i] = c.style
    out = Text(no_wrap=True, overflow="crop")
    for y in range(h):
        row_chars, row_styles = chars[y], styles[y]
        x = 0
        while x < w:
            st = row_styles[x]
            x2 = x
            while x2 < w and row_styles[x2] == st:
                x2 += 1
            out.append("".join(row_chars[x:x2]), style=st or None)
            x = x2
        if y < h - 1:
            out.append("\n")
    return out


class BoardView(Widget):
    """Paints one board; a click on a pile posts :class:`BoardView.PileClicked`."""

    DEFAULT_CSS = """
    BoardView { height: auto; width: auto; padding: 0 1; }
    """

    class PileClicked(Message):
        def __init__(self, pile: str, index: int | None, chain: int = 1) -> None:
            super().__init__()
            self.pile = pile
            self.index = index
            self.chain = chain  # 2 for a double click

    def __init__(self, *, placeholder: str = "", **kw: Any) -> None:
        super().__init__(**kw)
        self.canvas: Canvas | None = None
        self.placeholder = placeholder

    def show(self, board: Board | None, marks: Marks | None = None, placeholder: str | None = None) -> None:
        self.canvas = layout_board(board, marks) if board is not None else None
        if placeholder is not None:
            self.placeholder = placeholder
        self.refresh(layout=True)

    def render(self) -> Text:
        if self.canvas is None:
            return Text(self.placeholder)
        return canvas_text(self.canvas)

    def get_content_width(self, container: Size, viewport: Size) -> int:
        if self.canvas is not None:
            return self.canvas.width
        return max(1, *(len(line) for line in self.placeholder.split("\n")))  # its widest line

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return self.canvas.height if self.canvas else max(self.placeholder.count("\n") + 1, 1)

    def on_click(self, event: events.Click) -> None:
        if self.canvas is None:
            return
        # event.x/y are relative to the widget including padding (1 column left)
        hit = self.canvas.hit(event.x - 1, event.y)
        if hit is not None:
            self.post_message(self.PileClicked(*hit, chain=getattr(event, "chain", 1)))


class GameChoice(RadioSet):
    """A choice of game whose highlight is always the game chosen. Textual's RadioSet starts
    its highlight on its first button whatever button is on, and its arrows move the
    highlight without choosing: the highlight sat on one game while another was chosen (and
    its ratings shown). Here the highlight starts on the chosen game and the arrows choose."""

    BINDINGS = [
        Binding("down,right", "choose(1)", "next game", show=False),
        Binding("up,left", "choose(-1)", "previous game", show=False),
    ]

    def on_mount(self) -> None:
        # After RadioSet's own mount handler, which puts the highlight on the first button.
        self.call_later(self._highlight_chosen)

    def _highlight_chosen(self) -> None:
        if self.pressed_index >= 0:
            self._selected = self.pressed_index

    def action_choose(self, delta: int) -> None:
        if delta > 0:
            self.action_next_button()
        else:
            self.action_previous_button()
        self.action_toggle_button()


def bar_width(columns: int, model: RaceModel) -> int:
    """The widest bar (at most 30) that keeps every progress line within `columns`."""
    longest = max((len(_status(row)) for row in model.ordered()), default=0)
    fixed = len(progress_line("", 0, 1, 0, "", 0))  # everything but the bar and the status
    return max(8, min(30, columns - fixed - longest))


def _status(row: PlayerRow) -> str:
    return f"{row.status} (berserk)" if row.berserk else row.status


def bars_text(model: RaceModel, width: int = 30, rows: int | None = None) -> Text:
    """Every player's progress as one bar per line, in seat order; the player's own in bold.

    ``rows``: the lines there is room for. With more players than that (a race of 8 in the
    5 rows a short terminal gives the bars), the player's own bar and the leading rivals' (most
    cards home), then a line saying how many more there are and who: the rows past the room
    were cut off without a sign, the player's own among them (seated last)."""
    out = Text(no_wrap=True, overflow="ellipsis")
    total = model.total or 1
    shown, hidden = _bars_shown(model, rows)
    for i, row in enumerate(shown):
        me = row.player == model.me
        line = progress_line(marked_name(row.who(), 16), row.home, total, row.n, _status(row), width, me)
        style = "bold" if me else ""
        if row.status == "won":
            style += " green"
        elif row.status in ("finished", "timeout"):
            style += " grey62"
        out.append(line, style=style.strip() or None)
        if i < len(shown) - 1:
            out.append("\n")
    if hidden:
        rest = " · ".join(f"{marked_name(row.who())} {row.home}/{total}" for row in hidden)
        out.append(f"\n +{len(hidden)} more: {rest}", style="grey62")
    if not model.players and model.status != "none":  # no race at all (the menu): nothing
        out.append("(no players yet)", style="grey62")
    return out


def _bars_shown(model: RaceModel, rows: int | None) -> tuple[list[PlayerRow], list[PlayerRow]]:
    """The rows whose bars fit ``rows`` lines (one is the "more" line), and the rest; each in
    seat order. The player's own is always shown, then the rivals with most cards home."""
    seated = model.ordered()
    if rows is None or len(seated) <= rows:
        return seated, []
    room = max(rows - 1, 1)
    mine = [row for row in seated if row.player == model.me]
    rivals = sorted((row for row in seated if row.player != model.me), key=lambda row: -row.home)
    keep = {row.player for row in mine[:room] + rivals[: room - len(mine[:room])]}
    return [row for row in seated if row.player in keep], [row for row in seated if row.player not in keep]


def leave_screen(screen: Screen[Any], result: Any) -> None:
    """Dismiss `screen` with `result`, its workers cancelled first. Its widgets go before the
    screen does, and only the screen's own unmount cancels its workers: a request's reply
    landing in between found no widget to write to, and the failed worker took the app down."""
    screen.workers.cancel_node(screen)
    screen.dismiss(result)
