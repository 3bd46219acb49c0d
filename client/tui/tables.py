"""Tables that fit the window: each column as wide as its widest cell, and when the row is
wider than the table, named columns give way in turn (each down to a floor), their cells cut
with an ellipsis, while the others stay whole. The race, arena, daily and "Your races" lists
use it: at 80 columns a long cell pushed the later columns off the screen. A list whose
names are read rather than scanned (the arenas') wraps them on a second line instead."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

from rich.cells import cell_len, set_cell_size
from textual.widget import Widget
from textual.widgets import DataTable

#: A cell's padding, either side (textual's DataTable default).
CELL_PADDING = 1


def fit(text: str, width: int) -> str:
    """``text`` cut to ``width`` cells, an ellipsis marking the cut."""
    if cell_len(text) <= width:
        return text
    return set_cell_size(text, max(width - 1, 0)) + "…"


def list_widths(
    rows: Sequence[tuple[str, ...]], width: int, columns: Sequence[str], give_way: Sequence[tuple[int, int]]
) -> list[int]:
    """The columns' widths for a table ``width`` cells wide: each as wide as its widest
    cell; when they do not fit, the ``give_way`` (column, floor) pairs narrow in turn, each
    down to its floor; the others stay whole."""
    widths = [max([cell_len(h), *(cell_len(r[i]) for r in rows)]) for i, h in enumerate(columns)]
    room = width - 2 * CELL_PADDING * len(widths)
    for column, floor in give_way:
        over = sum(widths) - room
        if over > 0:
            widths[column] = max(min(floor, widths[column]), widths[column] - over)
    return widths


def cut_rows(rows: Sequence[tuple[str, ...]], widths: Sequence[int]) -> list[tuple[str, ...]]:
    """Each cell cut to its column's width (an ellipsis marking the cut)."""
    return [tuple(fit(c, w) for c, w in zip(r, widths, strict=True)) for r in rows]


def wrap(text: str, width: int, lines: int) -> str:
    """``text`` on at most ``lines`` lines of ``width`` cells, broken between words; what
    is left for the last line is cut with an ellipsis."""
    if cell_len(text) <= width or width < 1:
        return fit(text, width)
    parts = textwrap.wrap(text, width) or [text]
    kept = parts[: lines - 1] + [" ".join(parts[lines - 1 :])]
    return "\n".join(fit(part, width) for part in kept)


def wrap_rows(
    rows: Sequence[tuple[str, ...]], widths: Sequence[int], wrapped: Sequence[int], lines: int = 2
) -> list[tuple[str, ...]]:
    """As :func:`cut_rows`, but the ``wrapped`` columns' cells too long for their column
    go on up to ``lines`` lines (the row grows) before they are cut."""
    return [
        tuple(
            wrap(c, w, lines) if i in wrapped else fit(c, w)
            for i, (c, w) in enumerate(zip(r, widths, strict=True))
        )
        for r in rows
    ]


def fixed_widths(table: DataTable[str], widths: Sequence[int]) -> None:
    """Set the table's column widths. Fixed: an auto width only ever grows, and would keep a
    narrowed window's cut columns off the screen."""
    for column, width in zip(table.ordered_columns, widths, strict=True):
        column.auto_width, column.width = False, width
    table.refresh(layout=True)


def table_width(screen: Widget, table: DataTable[str], rows: int) -> int:
    """The cells a table of `rows` rows has across: its own width once laid out (else its
    screen's less a frame), less a vertical scrollbar's when the rows will not all show."""
    width = table.content_region.width or screen.app.size.width - 8
    shown = table.content_region.height or screen.app.size.height
    return width - (table.styles.scrollbar_size_vertical if rows + 1 > shown else 0)
