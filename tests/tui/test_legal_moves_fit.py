"""The legal moves under the board at 80x24: the row shows the moves that fit it and says how
many more there are and how to see them (the `legal` command); `legal` shows every one of them,
wrapped in their box, and folds them again. The row was cut at 80 columns ("… "), the rest
of the moves nowhere."""

from __future__ import annotations

import re

from .helpers import offline_play, race_started, rendered, until


def rows(widget) -> list[str]:
    return [widget.render_line(y).text.strip() for y in range(widget.size.height)]


async def test_the_legal_moves_that_fit_then_all_of_them() -> None:
    app, _ = offline_play("racing-aces")  # this deal starts with 17 legal moves
    async with app.run_test(size=(80, 24)) as pilot:
        await race_started(pilot)
        hints = app.query_one("#hints")
        legal = list(app.model.legal)
        assert len(legal) == 17
        more = re.compile(r"^legal \(17\): (.*) … and (\d+) more: type legal$")
        await until(pilot, lambda: hints.size.height == 1 and more.match(rows(hints)[0]), what="the row")
        shown, rest = more.match(rows(hints)[0]).groups()  # type: ignore[union-attr]
        assert shown.split() == legal[: len(legal) - int(rest)] and int(rest) > 0
        assert len(rows(hints)[0]) <= hints.content_region.width  # whole in its row, not cut

        await pilot.press(*"legal", "enter")
        await until(pilot, lambda: hints.size.height > 1, what="every move shown")
        drawn = " ".join(rows(hints))
        assert drawn.startswith("legal (17): ") and all(f" {move} " in f" {drawn} " for move in legal)
        assert "all 17 legal moves" in rendered(app.query_one("#status"))
        await pilot.press(*"legal", "enter")
        await until(pilot, lambda: hints.size.height == 1 and more.match(rows(hints)[0]), what="folded")


async def test_the_help_names_legal() -> None:
    app, _ = offline_play("racing-aces")
    async with app.run_test(size=(80, 24)) as pilot:
        await race_started(pilot)
        await pilot.press(*"help", "enter")
        await until(pilot, lambda: " legal " in rendered(app.query_one("#status")), what="the help")
