"""The end of a race in an 80x24 terminal (offline session, textual's pilot): the final
ranking takes the bars' place under the board, so a Racing Aces board and its ranking are
both whole; a board that with the ranking is taller than the terminal (80x20 here) is whole
once ctrl+r hides the ranking, and ctrl+r shows it again. The status line says so, whole."""

from __future__ import annotations

from .helpers import offline_play, race_started, rendered, until


def needed_rows(widget) -> int:
    return widget.get_content_height(
        widget.container_size, widget.container_viewport.size, widget.content_region.width
    )


async def finish(pilot) -> None:
    app = pilot.app
    await race_started(pilot)
    await pilot.press("ctrl+r")
    await until(pilot, lambda: "no ranking yet" in rendered(app.query_one("#status")), what="said")
    await pilot.press(*"finish", "enter", *"finish", "enter")  # asked, then confirmed
    await until(pilot, lambda: app.model.status == "finished" and app.model.ranking, what="race end")
    await pilot.pause()


def board_whole(app) -> bool:
    scroll = app.query_one("#board-scroll")
    return app.query_one("#board").virtual_size.height <= scroll.region.height


async def test_a_racing_aces_board_and_its_ranking_are_both_whole_at_80x24() -> None:
    app, _ = offline_play("racing-aces", countdown_ms=50, rival_interval=0.01, rival_max_moves=5)
    async with app.run_test(size=(80, 24)) as pilot:
        await finish(pilot)
        result, status = app.query_one("#result"), app.query_one("#status")
        await until(pilot, lambda: result.region.height > 0, what="the ranking shown")
        assert board_whole(app), (app.query_one("#board").virtual_size, app.query_one("#board-scroll").region)
        assert not app.query_one("#bars").display  # the ranking says what the bars said
        assert result.region.bottom <= status.region.y  # nothing covers it
        assert needed_rows(result) <= result.region.height - 1  # less its rule
        text = rendered(status)
        assert "ctrl+r hides it" in text and "ctrl+q" in text
        assert needed_rows(status) <= status.region.height, (text, status.region)  # whole
        assert "ctrl+r" in app.query_one("#cmd").placeholder


async def test_ctrl_r_hides_the_ranking_for_a_tall_board_and_shows_it_again() -> None:
    app, _ = offline_play("double-aces-and-kings", countdown_ms=50, rival_interval=0.01, rival_max_moves=5)
    async with app.run_test(size=(80, 20)) as pilot:
        await finish(pilot)
        result = app.query_one("#result")
        await until(pilot, lambda: result.region.height > 0, what="the ranking shown")
        assert not board_whole(app)  # 11 rows of board, and the ranking: more than 20 rows
        await pilot.press("ctrl+r")
        await until(pilot, lambda: not result.display, what="the ranking hidden")
        await until(pilot, lambda: board_whole(app), what="the board whole")
        assert "ctrl+r shows the ranking again" in rendered(app.query_one("#status"))
        assert app.focused is app.query_one("#cmd")  # typing goes on where it was
        await pilot.press("ctrl+r")
        await until(pilot, lambda: result.region.height > 0, what="the ranking shown again")
        assert "Final ranking" in rendered(result)


async def test_the_seed_check_is_one_row_in_words() -> None:
    """The seed's line under the ranking is one row at 80 columns, without a formula: it said
    "✓ sha256(seed) matches the deal's fingerprint" and wrapped its last word onto a row of its
    own, a row the ranking's 80x24 has none to spare for."""
    app, _ = offline_play("racing-aces", countdown_ms=50, rival_interval=0.01, rival_max_moves=5)
    async with app.run_test(size=(80, 24)) as pilot:
        await finish(pilot)
        await until(pilot, lambda: app.model.status == "finished" and app.model.ranking, what="the end")
        lines = rendered(app.query_one("#result")).splitlines()
        seed = next(line for line in lines if line.startswith("seed "))
        assert seed.endswith("✓ matches the deal's fingerprint") and len(seed) <= 78, seed
        assert "sha256" not in " ".join(lines)
