"""The ratings screen of `solrace play` against a real server (in this process) and a real
Redis (docs/protocol.md §9): after one rated race made through the client library, the
account's profile shows its provisional rating as the browser does (``1032?``, and the
rated races to go), the game's board says where it stands, another game's board
follows the choice; a guest is told how to get a rating."""

from __future__ import annotations

import asyncio

import pytest
from textual.widgets import RadioButton
from waiting import DEADLINE

from client.library.connection import Client, connect
from client.tui.menu import MenuScreen
from client.tui.net import connector, write_token
from client.tui.play_app import PlayApp
from client.tui.ratings_screen import RatingsScreen
from protocol import messages as m
from protocol.rules.facts import game_name
from protocol.rules.games import GAMES

from .helpers import CHEAP_HASH, account_token, click_shown, rendered, until

pytestmark = pytest.mark.timeout(120)

GAME = "fours-up"


async def rated_race(host: Client, other: Client) -> None:
    """One rated race of GAME: `host` makes a move more, both declare finished; both
    wait for their `rating` event."""
    snap: m.RaceSnapshot = await host.request(m.Create(game=GAME, seats=2, rated=True))
    assert snap.rated
    await other.join(snap.race)
    await asyncio.gather(host.ready(snap.race), other.ready(snap.race))
    await asyncio.gather(*(c.wait_for("start", timeout=DEADLINE) for c in (host, other)))
    await host.move(snap.race, "draw")
    await asyncio.gather(host.finish(snap.race), other.finish(snap.race))
    await asyncio.gather(*(c.wait_for(m.RatingChange, timeout=DEADLINE) for c in (host, other)))


async def open_ratings(pilot, app: PlayApp) -> RatingsScreen:
    await until(pilot, lambda: isinstance(app.screen, MenuScreen), what="the menu")
    await click_shown(pilot, "#ratings")
    screen: RatingsScreen = await until(
        pilot, lambda: isinstance(app.screen, RatingsScreen) and app.screen, what="the ratings screen"
    )
    return screen


async def test_ratings_show_the_provisional_marker_and_the_board(make_server, tmp_path) -> None:
    server = await make_server(**CHEAP_HASH)
    url = server.ws_url
    ada_token, bob_token = await asyncio.gather(account_token(url, "ada"), account_token(url, "bob"))
    async with connect(url, token=ada_token) as ada, connect(url, token=bob_token) as bob:
        await rated_race(ada, bob)
        mine = next(g.rating for g in (await ada.profile()).ratings if g.game == GAME)
    assert mine.provisional and mine.races == 1

    path = tmp_path / "token"
    write_token(path, ada_token)
    app = PlayApp(connector(url, None, str(path)), default_game=GAME)
    async with app.run_test(size=(120, 50)) as pilot:
        screen = await open_ratings(pilot, app)
        profile = screen.query_one("#ratings-profile")
        await until(pilot, lambda: "ratings" in rendered(profile) and "Fours Up" in rendered(profile))
        text = rendered(profile)
        assert text.startswith("ada — ratings")
        line = next(x for x in text.splitlines() if "Fours Up:" in x)
        assert f"{mine.rating}?" in line and "1 rated race" in line
        assert "provisional: 9 more rated races to go" in line
        assert "not played rated yet" in text  # the other games
        assert "1 of 2" in text  # the rated race, its place and the rating before → after
        assert "A ? after a rating means provisional" in text

        board = screen.query_one("#ratings-board")
        await until(pilot, lambda: "Fours Up ratings" in rendered(board), what="the board")
        text = rendered(board)
        assert (
            f"you: {mine.rating}?, provisional — 9 more rated races to be on the board (1 of 10 so far)"
            in text
        )
        assert "no established Fours Up rating yet" in text

        # Another game: its board, where ada has not played rated yet.
        screen.query_one("#ratings-games").query_one(RadioButton).value = True  # Racing Aces
        await until(pilot, lambda: "Racing Aces ratings" in rendered(board), what="the other board")
        assert "you: no rated Racing Aces race yet" in rendered(board)
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), what="back to the menu")


async def test_a_guest_is_told_how_to_get_a_rating(make_server, tmp_path) -> None:
    server = await make_server()
    app = PlayApp(connector(server.ws_url, "visitor", str(tmp_path / "token")), default_game=GAME)
    async with app.run_test(size=(120, 50)) as pilot:
        you = await until(pilot, lambda: app.screen.query("#menu-you"), what="the menu")
        assert "(guest)" in rendered(you.first()) and "--login NAME" in rendered(you.first())
        screen = await open_ratings(pilot, app)
        profile, board = screen.query_one("#ratings-profile"), screen.query_one("#ratings-board")
        await until(pilot, lambda: "Fours Up ratings" in rendered(board), what="the board")
        assert "guests have no rating" in rendered(profile) and "--claim NAME" in rendered(profile)
        assert "you: a guest, so no rating" in rendered(board)


def highlighted(screen: RatingsScreen) -> list[str | None]:
    """The games whose tab is highlighted (the row the arrows and Enter act on)."""
    return [
        b.name for b in screen.query_one("#ratings-games").query("RadioButton") if b.has_class("-selected")
    ]


async def test_the_highlighted_game_is_the_one_whose_board_is_shown(make_server, tmp_path) -> None:
    # GAME is not the first game: a plain RadioSet highlighted the first one on first show,
    # and its arrows moved the highlight without changing the board.
    assert next(iter(GAMES)) != GAME
    server = await make_server()
    app = PlayApp(connector(server.ws_url, "visitor", str(tmp_path / "token")), default_game=GAME)
    async with app.run_test(size=(120, 50)) as pilot:
        screen = await open_ratings(pilot, app)
        board = screen.query_one("#ratings-board")
        await until(pilot, lambda: "Fours Up ratings ·" in rendered(board), what="the board")
        assert highlighted(screen) == [GAME]
        for key in ("down", "down", "up", "up", "up"):
            await pilot.press(key)
            await until(pilot, lambda: f"{game_name(screen.game)} ratings ·" in rendered(board))
            assert highlighted(screen) == [screen.game]
        assert screen.game != GAME  # the keys did change the game shown


async def test_a_profile_that_failed_stays_said_once_the_board_loads(make_server, tmp_path) -> None:
    """The profile's failure (here the session's reply to `profile` is a timeout) stays on the
    error line when the board loads after it: the board clears only its own error."""
    from client.tui.errors import ServerError

    server = await make_server(**CHEAP_HASH)
    path = tmp_path / "token"
    write_token(path, await account_token(server.ws_url, "ada"))
    app = PlayApp(connector(server.ws_url, None, str(path)), default_game=GAME)
    async with app.run_test(size=(120, 50)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), what="the menu")
        session = app.session
        assert session is not None
        ask = session.request

        async def no_profile(t: str, **f):
            if t == "profile":
                raise ServerError("timeout", "no reply from the server")
            return await ask(t, **f)

        session.request = no_profile  # type: ignore[method-assign]
        screen = await open_ratings(pilot, app)
        board = screen.query_one("#ratings-board")
        await until(pilot, lambda: "Fours Up" in rendered(board) and "loading" not in rendered(board))
        assert "your ratings: " in rendered(screen.query_one("#ratings-error"))


async def test_every_game_name_is_whole_on_the_ratings_screen_at_80x24(make_server, tmp_path) -> None:
    """At 80 columns the four games in one row were cut: "Double Aces …", "Rouge et Noi…"."""
    server = await make_server()
    app = PlayApp(connector(server.ws_url, "visitor", str(tmp_path / "token")), default_game=GAME)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_ratings(pilot, app)
        games = screen.query_one("#ratings-games")
        await until(pilot, lambda: games.region.area > 0, what="the games laid out")

        def drawn() -> str:
            strips = screen._compositor.render_strips()[games.region.y : games.region.bottom]
            return "\n".join("".join(seg.text for seg in strip) for strip in strips)

        await until(
            pilot, lambda: all(game_name(g) in drawn() for g in GAMES), what=f"whole names: {drawn()}"
        )
        assert screen.region.contains_region(games.region)
