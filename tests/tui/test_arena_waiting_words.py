"""A player in a running arena who is not paired is told why and what comes next: a race
needs a second free player (docs/arenas.md §4). It said "paired whenever free" to a player
alone in the arena, who was never paired; now: the only player so far, paired once another
joins; or, the others being in their races, waiting for one of them to be free."""

from __future__ import annotations

import pytest
from waiting import DEADLINE

from client.tui.arena_app import ArenaApp
from client.tui.arena_view import joined_said, joined_text
from client.tui.net import connector
from protocol import messages as m

from .helpers import rendered, until
from .test_arena_tui import SERVER

T = 1_764_547_200_000
ARENA = {"id": "a-1", "name": "Cup", "game": "fours-up", "starts": T, "ends": T + 600_000}
ALONE = "you are in, the only player so far: paired once another joins"
WAITING = "you are in: waiting for another player to be free, then paired within seconds"


def lines(widget) -> list[str]:
    return [widget.render_line(y).text.strip() for y in range(widget.size.height)]


def test_the_words_of_a_joined_player_not_paired() -> None:
    joined = {"arena": ARENA, "joined": True}
    assert joined_text(joined, T + 1, alone=True) == ALONE
    assert joined_text(joined, T + 1) == WAITING
    assert joined_text({**joined, "race": "r1"}, T + 1) == "you are in: paired (your race: below)"
    assert joined_text(joined, T + 600_000) == "you are in: it pairs nobody any more"
    assert "paired once another joins" in joined_said(joined, T + 1, alone=True)
    assert "as soon as another player is free" in joined_said(joined, T + 1)


async def opened_and_joined(pilot, app: ArenaApp, arena: str) -> None:
    """The app on `arena`, then `j`: joined."""
    await until(pilot, lambda: app.arena_id == arena, what="opened")
    await pilot.press("j")
    await until(pilot, lambda: app.data.get("joined"), what="joined")


@pytest.mark.timeout(120)
async def test_alone_or_with_everyone_busy_the_arena_says_what_pairs_you(make_server, tmp_path):
    from client.library.connection import connect

    server = await make_server(**SERVER)  # a paired race stays in its countdown: its players busy
    async with connect(server.ws_url, name="host") as host, connect(server.ws_url, name="bob") as bob:
        for arena in ("lonely", "busy"):
            await host.request(m.ArenaCreate(arena=arena, game="fours-up", duration_ms=3_600_000))
        # Alone in "lonely": nobody else to race.
        app = ArenaApp(connector(server.ws_url, "ada", str(tmp_path / "ada")), arena="lonely", refresh_s=60)
        async with app.run_test(size=(80, 24)) as pilot:
            await opened_and_joined(pilot, app, "lonely")
            status = app.query_one("#status")
            await until(pilot, lambda: "a race needs two" in rendered(status), what="the join's words")
            info = app.query_one("#arena-info")
            await until(
                pilot, lambda: any(ALONE in row for row in lines(info)), what="alone, said whole on a row"
            )
            assert app.paired is None
        # In "busy", the two others are in a race together: ada waits for one to be free.
        await host.arena_join("busy")
        await bob.arena_join("busy")
        await host.wait_for("race", timeout=DEADLINE)
        app = ArenaApp(connector(server.ws_url, "eve", str(tmp_path / "eve")), arena="busy", refresh_s=60)
        async with app.run_test(size=(80, 24)) as pilot:
            await opened_and_joined(pilot, app, "busy")
            info = app.query_one("#arena-info")
            await until(
                pilot, lambda: any(WAITING in row for row in lines(info)), what="waiting, said whole on a row"
            )
            assert any(line.startswith("id busy") for line in lines(info))  # its id on a row of its own
            assert app.paired is None
