"""`solrace arena` names a paired race with the command that plays it,
`solrace play --race ID`: that command exists and goes back to the seat, against a real
server (in this process). A race where the player holds no seat is said so."""

from __future__ import annotations

import argparse
import shlex

import pytest

from client.cli import play
from client.tui.arena_app import ArenaApp
from client.tui.net import connector
from protocol import messages as m

from .helpers import rendered, until

pytestmark = pytest.mark.timeout(120)

# The paired race stays in its countdown for the whole test (as in test_arena_tui.py).
SERVER = {
    "arena_create": 1,
    "arena_schedule": "off",
    "arena_tick_ms": 100,
    "arena_update_ms": 100,
    "countdown_ms": 600_000,
}


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    play.add_arguments(parser)
    return parser.parse_args(list(argv))


async def test_the_command_the_arena_app_names_plays_the_paired_race(make_server, tmp_path) -> None:
    from client.library.connection import connect

    server = await make_server(**SERVER)
    token = str(tmp_path / "token")
    async with connect(server.ws_url, name="host") as host:
        await host.request(m.ArenaCreate(arena="cup", game="fours-up", duration_ms=120_000, name="Cup"))
        arena = ArenaApp(connector(server.ws_url, "ada", token), arena="cup", refresh_s=0.3)
        async with arena.run_test(size=(120, 40)) as pilot:
            await until(pilot, lambda: arena.arena_id == "cup", what="arena opened")
            await pilot.press("j")
            await until(pilot, lambda: arena.data.get("joined"), what="joined")
            await host.arena_join("cup")
            await until(pilot, lambda: arena.paired is not None, what="paired")
            said = rendered(arena.query_one("#status"))
            race = arena.paired
        # "... (play it: solrace play --race ID) ...": the command as the user would type it.
        command = said.split("solrace play ", 1)[1].split(")", 1)[0]
        argv = shlex.split(command)
        assert argv == ["--race", race], said
        app = play.build_app(parse(*argv, "--url", server.ws_url, "--token-file", token))
        async with app.run_test(size=(110, 45)) as pilot:
            await until(pilot, lambda: app.model.race_id == race, what="back in the paired race")
            assert app.model.me in app.model.players and app.model.status == "countdown"
            assert "back in race" in rendered(app.query_one("#status"))

        # A race this identity holds no seat in: said so, not shown as if it were the player's.
        other = await host.create("fours-up", seats=2)
        app = play.build_app(parse("--race", other.race, "--url", server.ws_url, "--token-file", token))
        async with app.run_test(size=(110, 45)) as pilot:
            await until(pilot, lambda: "no seat" in rendered(app.query_one("#status")), what="no seat said")
            assert f"--join {other.race}" in rendered(app.query_one("#status"))


def test_race_and_the_other_modes_exclude_each_other() -> None:
    with pytest.raises(SystemExit):
        parse("--race", "r1", "--join", "r2")
    with pytest.raises(SystemExit, match="--offline"):
        play.build_app(parse("--race", "r1", "--offline"))  # offline has no server race
