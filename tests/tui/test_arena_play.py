"""`solrace arena`: `p` plays the paired race. The app exits naming it (`play_next`) and
`solrace arena` runs the race screen, then opens the arena again; `b` berserks only while
the race counts down. Against a real server (in this process)."""

from __future__ import annotations

import pytest
from must import must
from textual.widgets import Footer
from waiting import DEADLINE

from client.tui.arena_app import ArenaApp, PlayNext
from client.tui.arena_view import paired_line
from client.tui.net import connector
from protocol import messages as m

from .helpers import footer_keys, rendered, until
from .test_arena_tui import SERVER

ARENA = "play-cup"


def test_the_paired_line_says_p_plays_it_and_b_only_before_the_start():
    counting = paired_line("r1", running=False, berserk=True)
    assert counting.startswith("paired: race r1 — p: play it now")
    assert "+1 on a win)" in counting
    # the command on a row of its own, to copy whole
    assert counting.splitlines()[-1] == "or in another terminal: solrace play --race r1"
    assert "berserk" not in paired_line("r1", running=False, berserk=False)
    on = paired_line("r1", running=True, berserk=True)
    assert on.startswith("your race r1 is on — p: play it now") and "berserk" not in on


async def joined(pilot, app: ArenaApp) -> None:
    """Until ARENA is open and joined (the caller's rival then joins: the two are paired)."""
    await until(pilot, lambda: app.arena_id == ARENA, what="opened")
    await until(pilot, lambda: "join" in footer_keys(app), what="the arena's keys")
    assert "play your race" not in footer_keys(app)  # nothing to play yet
    await pilot.press("j")
    await until(pilot, lambda: app.data.get("joined"), what="joined")


@pytest.mark.timeout(120)
async def test_p_exits_with_the_paired_race_to_play(make_server, tmp_path):
    from client.library.connection import connect

    server = await make_server(**SERVER)  # the race counts down for the whole test
    async with connect(server.ws_url, name="host") as host:
        await host.request(m.ArenaCreate(arena=ARENA, game="fours-up", duration_ms=120_000, name="Play Cup"))
        app = ArenaApp(connector(server.ws_url, "ada", str(tmp_path / "token")), arena=ARENA, refresh_s=0.3)
        async with app.run_test(size=(80, 24)) as pilot:
            await joined(pilot, app)
            await host.arena_join(ARENA)
            status = app.query_one("#status")
            await until(pilot, lambda: "paired: race" in rendered(status), what="paired")
            race = app.paired
            assert race is not None and f"race {race} — p: play it now" in rendered(status)
            # it counts down: berserk is open
            await until(
                pilot,
                lambda: footer_keys(app).get("play your race") and footer_keys(app).get("berserk"),
                what="p and b enabled",
            )

            def footer_fits() -> bool:  # every key on the footer's row, within the 80 columns
                keys = [k for k in app.query_one(Footer).children if getattr(k, "description", "")]
                return len(keys) == 7 and all(0 < k.region.right <= 80 for k in keys)

            await until(pilot, footer_fits, what="the footer's 7 keys within 80 columns")
            await pilot.press("p")
            await until(pilot, lambda: app.return_value == 0, what="the app exited")
            assert app.play_next == PlayNext(ARENA, race)


@pytest.mark.timeout(120)
async def test_a_race_of_mine_the_arena_does_not_name_is_not_its_pairing(make_server, tmp_path):
    """A player in two arenas (or racing from another terminal) receives the snapshots of
    all their races: only the race the `arena` reply names is this arena's pairing."""
    from client.library.connection import connect

    server = await make_server(**SERVER)
    async with connect(server.ws_url, name="host") as host:
        await host.request(m.ArenaCreate(arena=ARENA, game="fours-up", duration_ms=120_000, name="Play Cup"))
        app = ArenaApp(connector(server.ws_url, "ada", str(tmp_path / "token")), arena=ARENA, refresh_s=0.3)
        async with app.run_test(size=(80, 24)) as pilot:
            await joined(pilot, app)
            me = must(app.session).player
            elsewhere = {"race": "r-elsewhere", "status": "countdown", "players": [{"player": me}]}
            app.seen_race(elsewhere)  # named by no arena: the `arena` reply is asked
            app.seen_race({**elsewhere, "race": "r-other-cup", "arena": "other-cup"})
            assert app.paired is None and "paired: race" not in rendered(app.query_one("#status"))
            await host.arena_join(ARENA)
            await until(pilot, lambda: app.paired is not None, what="paired")
            assert app.paired != "r-elsewhere"
            await until(pilot, lambda: app.data.get("race") == app.paired, what="the arena names it")


@pytest.mark.timeout(120)
async def test_once_the_race_is_on_berserk_closes_and_the_arena_reopened_finds_the_race(
    make_server, tmp_path
):
    from client.library.connection import connect

    server = await make_server(**{**SERVER, "countdown_ms": 300})
    token = str(tmp_path / "token")
    async with connect(server.ws_url, name="host") as host:
        await host.request(m.ArenaCreate(arena=ARENA, game="fours-up", duration_ms=120_000, name="Play Cup"))
        app = ArenaApp(connector(server.ws_url, "ada", token), arena=ARENA, refresh_s=0.3)
        async with app.run_test(size=(80, 24)) as pilot:
            await joined(pilot, app)
            await host.arena_join(ARENA)
            status = app.query_one("#status")
            await until(pilot, lambda: app.paired and app.paired_running, what="the race started")
            race = must(app.paired)
            await until(pilot, lambda: f"your race {race} is on" in rendered(status), what="the race is on")
            await until(
                pilot,
                lambda: footer_keys(app).get("berserk") is False and footer_keys(app).get("play your race"),
                what="berserk disabled, p enabled",
            )
            await pilot.press("b")  # disabled: not sent (the server would answer race-started)
            assert "race-started" not in rendered(status) and "is on" in rendered(status)
            await pilot.press("p")
            await until(pilot, lambda: app.return_value == 0, what="the app exited")
            assert app.play_next == PlayNext(ARENA, race)

        # What `solrace arena` does after the race screen: the arena again, a new connection
        # (no snapshot is pushed to it): the `arena` reply names the race, a resync says it is on.
        again = ArenaApp(connector(server.ws_url, "ada", token), arena=ARENA, refresh_s=0.3)
        async with again.run_test(size=(80, 24)) as pilot:
            status = again.query_one("#status")
            await until(pilot, lambda: again.paired == race, what="the race found again")
            await until(pilot, lambda: f"your race {race} is on" in rendered(status), what="said")
            # (the footer's keys are read once drawn whole: a redraw remounts them)
            await until(
                pilot,
                lambda: (
                    footer_keys(again).get("play your race") and footer_keys(again).get("berserk") is False
                ),
                what="p enabled, b disabled",
            )
            # both players finish: the race is over, nothing left to play
            await must(again.session).request("finish", race=race)
            await host.finish(race)
            await until(pilot, lambda: again.paired is None, timeout=DEADLINE, what="the race over")
            await until(pilot, lambda: "over for you" in rendered(status), what="said over")
            await until(
                pilot,
                lambda: (
                    "play your race" not in footer_keys(again) and footer_keys(again).get("berserk") is False
                ),
                what="p hidden, b disabled",
            )
