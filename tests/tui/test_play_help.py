"""The race screen's help is whole in its status line, from an 80-column terminal on (it was
cut after two rows even at 110 columns); until the session opens, the line says it is
connecting (tests/tui/test_connecting_help.py), and is whole too."""

from __future__ import annotations

import pytest

from client.tui.play_app import PlayApp
from client.tui.race_commands import (
    HELP,
    LOBBY_HELP,
    OVER_HELP,
    OVER_REPLAY,
    QUEUE_HELP,
    RACE_HELP,
    connecting_help,
)
from client.tui.race_text import connection_text

from .helpers import never_connects, rendered, status_rows, until


@pytest.mark.parametrize("columns", [80, 110, 160])
async def test_the_help_is_whole_in_the_status_line(columns: int) -> None:
    app = PlayApp(never_connects)
    async with app.run_test(size=(columns, 30)) as pilot:
        status = app.query_one("#status")
        await until(pilot, lambda: status.region.height > 0, what="the status line drawn")
        connecting = connecting_help(connection_text(None, None))
        assert " ".join(rendered(status).split()) == " ".join(connecting.split())
        needed = status.get_content_height(
            status.container_size, status.container_viewport.size, status.content_region.width
        )
        assert needed <= status.region.height, (needed, status.region)


OVER_WITH_REMATCH = OVER_HELP.replace("  Commands: ", OVER_REPLAY + "  Commands: rematch ")


@pytest.mark.parametrize(
    "text", [HELP, "Go! " + RACE_HELP + " hint", LOBBY_HELP, QUEUE_HELP, OVER_HELP, OVER_WITH_REMATCH]
)
async def test_the_race_and_lobby_helps_are_whole_at_80_columns(text: str) -> None:
    needed = await status_rows(text)
    assert needed <= 3, needed
