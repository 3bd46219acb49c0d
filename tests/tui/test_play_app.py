"""The play app driven by textual's pilot against the offline session."""

from __future__ import annotations

import pytest

from client.tui.board import BACK, card_text, parse_view
from client.tui.offline import LocalSession
from client.tui.play_app import Intent, PlayApp
from client.tui.widgets import BoardView
from protocol.rules.engine import deal

from .helpers import click_pile, rendered, until

SEED = "0123456789abcdef0123456789abcdef"


def make_app(game="racing-aces", intent="quick", **kw):
    kw.setdefault("countdown_ms", 100)
    kw.setdefault("rival_interval", 0.02)
    session = LocalSession(name="ada", seed=SEED, **kw)

    async def connect():
        return session

    it = Intent(intent, game, 2) if intent else None
    return PlayApp(connect, it), session


async def start_race(pilot, app):
    await until(pilot, lambda: app.model.status == "running" and app.model.legal, what="race start")


@pytest.mark.parametrize("game", ["racing-aces", "double-aces-and-kings", "rouge-et-noir", "fours-up"])
async def test_board_of_every_game_renders(game):
    app, _ = make_app(game, rival_interval=5)
    async with app.run_test(size=(110, 50)) as pilot:
        await start_race(pilot, app)
        text = rendered(app.query_one("#board", BoardView))
        view = deal(game, SEED).view_text()
        board = parse_view(view)
        for name in board.piles:
            assert name in text
        for name in ("f0", "f7", "t0", " s "):
            assert name in text
        for code in board.cards("t0")[-1:] + board.cards("f0")[-1:]:
            assert card_text(code) in text
        assert str(board.stock) in text
        if game == "rouge-et-noir":
            assert BACK in text and "??" not in text
        assert "♥" in text or "♦" in text
        # the header shows the game, the clock and the player's progress
        info = rendered(app.query_one("#info"))
        assert "left" in info and "home" in info


async def test_typed_notation_and_draw():
    app, session = make_app("racing-aces", rival_interval=5)
    async with app.run_test(size=(110, 45)) as pilot:
        await start_race(pilot, app)
        await pilot.press(*"draw", "enter")
        await until(pilot, lambda: app.model.n == 1, what="ack of draw")
        await pilot.press("d", "enter")
        await until(pilot, lambda: app.model.n == 2, what="ack of d")
        assert [m["move"] for m in session.sent if m["t"] == "move"] == ["draw", "draw"]
        assert parse_view(app.model.view).stock == 109
        # an illegal move: the server's error is shown in the status line, nothing changes
        await pilot.press(*"t0>t1", "enter")
        await until(pilot, lambda: "t0>t1: " in rendered(app.query_one("#status")), what="error shown")
        assert "illegal-move" not in rendered(app.query_one("#status"))  # words, not the code
        assert app.model.n == 2
        # Tab completes the first legal move from a prefix, Enter plays it
        await pilot.press("t", "tab")
        typed = app.query_one("#cmd").value
        assert typed in app.model.legal and typed.startswith("t")
        await pilot.press("enter")
        await until(pilot, lambda: app.model.n == 3, what="completed move acked")
        assert session.sent[-1]["move"] == typed


async def test_click_source_then_destination():
    app, session = make_app("racing-aces", rival_interval=5)
    async with app.run_test(size=(110, 45)) as pilot:
        await start_race(pilot, app)
        move = next(m for m in app.model.legal if m.startswith("t") and ">f" in m)
        src, dst = move.split(">")
        await click_pile(pilot, app, src, 0)
        assert app.selected == (src, 1)
        # legal destinations are highlighted
        canvas = app.query_one("#board", BoardView).canvas
        assert any(c.pile == dst and "green" in c.style for c in canvas.cells)
        await click_pile(pilot, app, dst)
        await until(pilot, lambda: app.model.n == 1, what="ack of clicked move")
        assert session.sent[-1]["move"] == move and session.sent[-1]["view"] is True
        assert app.selected is None
        # clicking the stock draws
        await click_pile(pilot, app, "s")
        await until(pilot, lambda: app.model.n == 2, what="draw by click")
        assert session.sent[-1]["move"] == "draw"


async def test_click_deeper_in_a_column_moves_a_run():
    app, session = make_app("fours-up", rival_interval=5)
    async with app.run_test(size=(110, 45)) as pilot:
        await start_race(pilot, app)
        # build a two-card run by playing legal tableau moves until a run move is legal
        for _ in range(200):
            runs = [m for m in app.model.legal if ":" in m]
            if runs:
                break
            single = [m for m in app.model.legal if m.startswith(("t", "w")) and ">t" in m]
            nxt = single[0] if single else "draw"
            if nxt not in app.model.legal:
                pytest.fail("deal offers no run: pick another seed for this test")
            n = app.model.n
            app.send_move(nxt)
            await until(pilot, lambda n=n: app.model.n == n + 1, what="setup move")
        else:
            pytest.fail("no run within 200 moves: pick another seed for this test")
        run = runs[0]
        src, rest = run.split(":")
        k, dst = rest.split(">")
        depth = len(app.model.board.cards(src)) - int(k)
        await click_pile(pilot, app, src, depth)
        assert app.selected == (src, int(k))
        n = app.model.n
        await click_pile(pilot, app, dst)
        await until(pilot, lambda: app.model.n == n + 1, what="run move acked")
        assert session.sent[-1]["move"] == run


async def test_rival_bar_moves_then_finish_and_ranking():
    app, session = make_app("racing-aces", rival_interval=0.01, rival_max_moves=60)
    async with app.run_test(size=(110, 45)) as pilot:
        await start_race(pilot, app)
        bot = next(p for p in app.model.players if p != app.model.me)
        await until(pilot, lambda: app.model.players[bot].home > 0, what="rival progress")
        bars = rendered(app.query_one("#bars"))
        assert "bot-1" in bars and "ada" in bars
        assert bars.splitlines()[1].split()[1] != "░" * 30  # the rival's bar is no longer empty
        await pilot.press(*"finish", "enter", *"finish", "enter")  # asked, then confirmed
        await until(pilot, lambda: app.model.status == "finished", what="race end")
        result = rendered(app.query_one("#result"))
        assert "Final ranking" in result and "ada" in result and "bot-1" in result
        assert SEED in result and "matches the deal's fingerprint" in result


async def test_menu_create_ready_and_countdown():
    app, session = make_app("fours-up", intent=None, rival_interval=5)
    async with app.run_test(size=(110, 45)) as pilot:
        await until(pilot, lambda: app.screen.__class__.__name__ == "MenuScreen", what="menu")
        await pilot.click("#create")
        await until(pilot, lambda: app.model.status == "lobby", what="lobby")
        assert session.sent[0]["t"] == "create" and session.sent[0]["game"] == "racing-aces"
        assert "type 'ready'" in rendered(app.query_one("#board", BoardView))
        assert "the other seats are local bots" in rendered(app.query_one("#board", BoardView))
        await pilot.press(*"ready", "enter")
        await until(pilot, lambda: app.model.status in ("countdown", "running"), what="countdown")
        await start_race(pilot, app)


async def test_join_unknown_race_shows_error():
    app, session = make_app(intent=None)
    app.intent = Intent("join", race="nope")
    async with app.run_test(size=(110, 45)) as pilot:
        await until(
            pilot,
            lambda: "cannot join race nope: no such race" in rendered(app.query_one("#status")),
            what="error",
        )


async def test_double_click_sends_a_card_home():
    app, session = make_app("racing-aces", rival_interval=5)
    async with app.run_test(size=(110, 45)) as pilot:
        await start_race(pilot, app)
        move = next(m for m in app.model.legal if m.startswith("t") and ">f" in m)
        src = move.split(">")[0]
        x, y = app.query_one("#board", BoardView).canvas.where(src, 0)
        await pilot.click("#board", offset=(x + 1, y), times=2)
        await until(pilot, lambda: app.model.n == 1, what="double-click move")
        assert [m["move"] for m in session.sent if m["t"] == "move"] == [move]


async def test_a_race_of_a_game_this_version_does_not_know_is_named_in_one_line():
    app, _ = make_app(intent=None)
    async with app.run_test(size=(110, 45)) as pilot:
        await until(pilot, lambda: app.session is not None, what="session")
        app.on_server_event({"t": "race", "race": "r1", "ver": 1, "game": "klondike", "status": "lobby"})
        await pilot.pause()
        status = rendered(app.query_one("#status"))
        assert "unknown game 'klondike'" in status and "fours-up" in status
        assert "klondike" in rendered(app.query_one("#info"))


async def test_own_finish_shows_at_once_while_the_race_goes_on():
    # the rival plays slowly, so the race is still running after the player's finish
    app, session = make_app("racing-aces", rival_interval=5)
    async with app.run_test(size=(110, 45)) as pilot:
        await start_race(pilot, app)
        await pilot.press(*"finish", "enter", *"finish", "enter")  # asked, then confirmed
        me = app.model.me
        await until(pilot, lambda: app.model.players[me].status == "finished", what="own row finished")
        assert app.model.status == "running"

        def own_bar() -> str:
            return next(line for line in rendered(app.query_one("#bars")).splitlines() if "ada" in line)

        await until(pilot, lambda: own_bar().rstrip().endswith("finished"), what="own bar finished")
        assert app.model.status == "running"
        assert "· finished" in rendered(app.query_one("#info"))
