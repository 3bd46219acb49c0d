"""The play app's `menu` command (offline session, textual's pilot): refused while the
player's own game is on, then, once it is over, back to the menu for the next race, whose
events are not mixed with the old one's; from the quick-match queue it leaves the queue.
A relaunch goes back to a seat only where the player's game is not over. Offline the menu
has no daily or ratings."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from client.tui.menu import MenuScreen
from client.tui.offline import LocalSession
from client.tui.play_app import PlayApp

from .helpers import DEADLINE, click_shown, offline_play, race_started, rendered, until

SEED = "0123456789abcdef0123456789abcdef"


async def test_menu_after_the_race_then_another_race() -> None:
    app, session = offline_play(rival_interval=0.01, rival_max_moves=30)
    async with app.run_test(size=(110, 45)) as pilot:
        await race_started(pilot)
        first = app.model.race_id
        await pilot.press(*"menu", "enter")
        status = app.query_one("#status")
        await until(pilot, lambda: "your game is on: 'finish'" in rendered(status), what="refused")
        assert not isinstance(app.screen, MenuScreen)

        await pilot.press(*"finish", "enter", *"finish", "enter")  # asked, then confirmed
        await until(pilot, lambda: app.model.status == "finished", what="race end")
        assert "'menu' for another race" in rendered(status)
        await pilot.press(*"menu", "enter")
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), what="the menu")
        assert app.model.race_id is None and app.model.status == "none"
        assert not app.screen.query("#daily") and not app.screen.query("#menu-you")  # offline
        await click_shown(pilot, "#quick")
        await until(pilot, lambda: app.model.status == "running" and app.model.legal, what="the next race")
        assert app.model.race_id != first and first in app.races_left
        # an event of the race left behind changes nothing
        session.events.put_nowait({"t": "race", "race": first, "ver": 999, "status": "finished"})
        await until(pilot, session.events.empty, what="the event taken")  # and handled at once
        await pilot.pause()
        assert app.model.race_id != first and app.model.status == "running"


async def test_menu_once_my_game_is_over_while_the_others_play_on() -> None:
    app, _ = offline_play()
    async with app.run_test(size=(110, 45)) as pilot:
        await race_started(pilot)
        first = app.model.race_id
        await pilot.press(*"finish", "enter", *"finish", "enter")  # asked, then confirmed
        await until(pilot, lambda: app.model.my_status == "finished", what="my game over")
        assert app.model.status == "running"  # the rival plays on
        await pilot.press(*"menu", "enter")
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), what="the menu")
        assert first in app.races_left


class QueueForEver(LocalSession):
    """A quick match that never finds rivals."""

    def _do_quick(self, game: str, seats: int = 2) -> dict[str, Any]:
        return {"t": "queued", "game": game, "seats": seats}


@pytest.mark.parametrize("word", ["menu", "leave"])
async def test_menu_or_leave_from_the_queue_leaves_it(word: str) -> None:
    app, session = offline_play(kind=QueueForEver)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.model.status == "queued", what="queued")
        assert "'menu' (or 'leave') stops waiting" in rendered(app.query_one("#board"))
        await pilot.press(*word, "enter")
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), what="the menu")
        assert {"t": "unqueue", "game": "racing-aces"} in session.sent


async def test_a_relaunch_resumes_only_a_race_whose_game_is_mine_to_play() -> None:
    session = LocalSession(name="ada", seed=SEED, countdown_ms=50, rival_interval=5)
    races = []
    for _ in range(2):
        await session.request("quick", game="racing-aces", seats=2)
        races.append(next(r for r in session.races if r not in races))
    await wait_for(lambda: all(session.races[r].status == "running" for r in races))
    playing, over = races
    await session.request("finish", race=over)
    session.seated_races = [playing, over]  # type: ignore[attr-defined]  # the welcome's seats

    async def connect() -> LocalSession:
        return session

    app = PlayApp(connect)
    async with app.run_test(size=(110, 45)) as pilot:
        await until(pilot, lambda: app.model.race_id == playing and app.model.legal, what="resumed")
        assert over in app.races_left and app.model.my_status == "playing"

    session.seated_races = [over]  # type: ignore[attr-defined]
    app = PlayApp(connect)
    async with app.run_test(size=(110, 45)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), what="the menu")
        assert over in app.races_left and app.model.race_id is None


async def wait_for(cond) -> None:
    deadline = asyncio.get_running_loop().time() + DEADLINE
    while not cond():
        assert asyncio.get_running_loop().time() < deadline, "timed out"
        await asyncio.sleep(0.01)


async def test_finish_asks_to_be_confirmed_while_cards_are_out() -> None:
    app, _ = offline_play()
    async with app.run_test(size=(110, 45)) as pilot:
        await race_started(pilot)
        status = app.query_one("#status")
        await pilot.press(*"finish", "enter")
        await until(pilot, lambda: "type 'finish' again to confirm" in rendered(status), what="asked")
        assert app.model.my_status == "playing"
        await pilot.press(*"resync", "enter", *"finish", "enter")  # another command between: asked again
        await until(pilot, lambda: app.finish_armed == app.model.race_id, what="asked again")
        assert app.model.my_status == "playing"
        await pilot.press(*"finish", "enter")
        await until(pilot, lambda: app.model.my_status == "finished", what="finished")


async def test_the_queue_says_how_long_it_has_waited_and_draws_no_stray_scrollbar() -> None:
    app, session = offline_play(kind=QueueForEver)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.model.status == "queued", what="queued")
        info = app.query_one("#info")
        await until(pilot, lambda: "waiting 0:0" in rendered(info), what="the wait counted")
        board = app.query_one("#board")
        await until(
            pilot, lambda: "stops waiting" in rendered(board) and board.region.width > 0, what="drawn"
        )
        await pilot.pause()
        assert board.region.width <= 78, board.region  # as wide as its widest line: no sideways scroll


async def test_a_race_played_for_the_arena_has_no_menu_and_says_where_ctrl_q_leads() -> None:
    app, _ = offline_play(rival_interval=0.01, rival_max_moves=30)
    app.back_to = "back to the arena"
    async with app.run_test(size=(110, 45)) as pilot:
        await race_started(pilot)
        status = app.query_one("#status")
        await pilot.press(*"menu", "enter")
        await until(
            pilot, lambda: "no menu here: ctrl+q goes back to the arena" in rendered(status), what="said"
        )
        assert "its clock go on" in rendered(status)  # ctrl+q works mid-game too
        assert "menu" not in app.query_one("#cmd").placeholder
        assert "menu" not in app.help_text()
        await pilot.press(*"finish", "enter", *"finish", "enter")
        # my game is over while the rival plays on: the command line says where to go
        await until(pilot, lambda: app.model.my_status == "finished", what="my game over")
        await until(
            pilot,
            lambda: app.query_one("#cmd").placeholder.startswith("ctrl+q goes back to the arena"),
            what="said",
        )
        await until(pilot, lambda: app.model.status == "finished", what="race end")
        assert "ctrl+q: back to the arena" in rendered(status) and "'menu'" not in rendered(status)
        assert app.query_one("#cmd").placeholder == "ctrl+q goes back to the arena · ctrl+r: ranking"


async def test_practice_alone_starts_a_race_of_one_seat_with_hints() -> None:
    session = LocalSession(name="ada", seed=SEED, countdown_ms=50)

    async def connect() -> LocalSession:
        return session

    app = PlayApp(connect)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), what="the menu")
        await click_shown(pilot, "#practice")
        await race_started(pilot)
        assert app.model.seats == 1 and list(app.model.players) == [app.model.me]
        assert app.help_text().endswith(" hint")
        assert [r["t"] for r in session.sent][:2] == ["create", "ready"]
