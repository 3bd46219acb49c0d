"""Names in the bars' and the ranking's columns are cut and padded by terminal cells, not by
characters. The server takes any name: 18 CJK characters (36 cells) pushed the bar, the %,
the moves and the status off the line, a row of emoji too, and a name with combining marks
(6 characters, 2 cells) was padded short, so every column after it came early."""

from __future__ import annotations

from rich.cells import cell_len

from client.tui.model import PlayerRow, RaceModel
from client.tui.text import marked_name, progress_line, ranking_lines
from client.tui.widgets import bars_text

NAMES = {
    "ascii": "ada",
    "cjk": "日本語日本語日本語日本語日本語日本語",
    "emoji": "😀" * 12,
    "combining": "a\u0301\u0301\u0301\u0301b",
    "odd cut": "a日本語日本語日本語",  # a wide character across the column's edge
}


def test_a_name_takes_its_column_in_cells() -> None:
    for name in NAMES.values():
        for account in (False, True):
            shown = marked_name({"player": "p1", "name": name, "account": account}, 16)
            assert cell_len(shown) == 16, (name, shown)
            assert shown.rstrip().endswith("✓") == account  # the mark is never cut
    assert marked_name({"player": "p1", "name": NAMES["cjk"]}, 16) == "日本語日本語日本"
    assert marked_name({"player": "p1", "name": NAMES["cjk"], "account": True}, 16) == "日本語日本語日 ✓"
    assert marked_name({"player": "p1", "name": NAMES["combining"]}, 16) == NAMES["combining"] + " " * 14


def test_the_bars_columns_line_up_whatever_the_names() -> None:
    model = RaceModel(me="p-ascii", race_id="r1", game="racing-aces", status="running", total=156)
    model.players = {
        f"p-{k}": PlayerRow(f"p-{k}", name, home=10, n=3, status="playing") for k, name in NAMES.items()
    }
    lines = bars_text(model, width=20).plain.split("\n")
    assert len(lines) == len(NAMES)
    assert len({cell_len(line) for line in lines}) == 1, lines
    # the bar starts in the same cell on every line
    starts = {cell_len(line[: line.index("█")]) for line in lines}
    assert starts == {18}, lines
    assert cell_len(progress_line(NAMES["emoji"], 0, 52, 0, "", 8)) == cell_len(
        progress_line("", 0, 52, 0, "", 8)
    )


def test_the_ranking_columns_line_up_whatever_the_names() -> None:
    row = {"rank": 1, "status": "finished", "won": False, "home": 5, "moves": 9, "time_ms": 61_000}
    lines = ranking_lines([{**row, "player": f"p-{k}", "name": name} for k, name in NAMES.items()])
    assert len({cell_len(line) for line in lines}) == 1, lines
    assert all(cell_len(line[: line.index("finished")]) == 21 for line in lines), lines
