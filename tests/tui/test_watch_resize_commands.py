"""`solrace watch`, a watched race over: the commands under its final ranking are broken to
the window's width between their arguments (client/tui/recent_text.py `shell_lines`), and
again when the window is resized. They kept the width they were drawn at: narrower, the
terminal wrapped a row mid-command with no `\\` (a copy ran half of it); wider, they stayed
broken."""

from __future__ import annotations

import pytest

from .helpers import rendered, until, watching_a_race
from .test_recent_commands_copy import command_rows, shell_args
from .test_watch_next_steps import rows


@pytest.mark.timeout(120)
async def test_the_commands_are_broken_again_when_the_window_is_resized(make_server, tmp_path):
    async with watching_a_race(make_server, tmp_path, "fours-up") as (server, a, b, race, app, pilot):
        url = server.ws_url
        app.server_url = url
        await a.finish(race)
        await b.finish(race)
        result = app.query_one("#race-result")
        await until(pilot, lambda: "solrace analyze" in rendered(result), what="the commands")

        def copied(verb: str) -> list[str]:
            """The command as a shell reads it from the screen's rows; [] unless each row fits."""
            mine = command_rows(rows(result), verb)
            return shell_args(mine) if all(len(row) <= result.content_region.width for row in mine) else []

        def whole(columns: int, broken: bool) -> bool:
            if result.content_region.width != columns - 2:  # the ranking's padding
                return False
            for verb in ("replay", "analyze"):
                if copied(verb) != ["solrace", verb, "--url", url, "--race", race]:
                    return False
                if (len(command_rows(rows(result), verb)) > 1) != broken:
                    return False
            return True

        await until(pilot, lambda: whole(80, broken=False), what="each command on a row at 80 columns")
        await pilot.resize_terminal(50, 24)
        await until(pilot, lambda: whole(50, broken=True), what=f"broken again at 50: {rows(result)}")
        await pilot.resize_terminal(120, 24)
        await until(pilot, lambda: whole(120, broken=False), what=f"whole again at 120: {rows(result)}")
