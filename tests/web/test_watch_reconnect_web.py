"""The watch page across a lost connection: the server stops and starts again (same port, same
data folder) and, while the page is away, the race ends or its players move. Once the page is
back (it spectates again on its welcome; the reply is the race as it is now, and for a finished
race the whole reply, docs/protocol.md §4 `spectate`) it shows the race finished with its
ranking, or the moves made meanwhile. (The terminal library had dropped that reply.) The boards
shown before the drop of a race that ended meanwhile go: they lack the moves made since, and
no newer ones come for a race that is over.

The page is kept offline (the browser context's network) from before the server stops until the
players have acted on the restarted server: otherwise it could reconnect first and see the
events live. Screenshots: test-artifacts/web/watch-reconnect-*.png."""

from __future__ import annotations

import asyncio
import threading

import pytest
from playwright.sync_api import expect
from waiting import DEADLINE, wait_until

from .conftest import Bot, Restartable, Server, shot

pytestmark = pytest.mark.timeout(180)

FLAGS = {"countdown_ms": 1200, "spectator_delay_ms": 300, "spectator_flush_ms": 100}


class TokenBot(Bot):
    """A `Bot` that resumes a player's session (its token) on a server started again."""

    def __init__(self, ws_url: str, token: str, race: str | None = None) -> None:
        from client.library import connect

        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.strategy_name = "greedy"
        self.task = None
        self.moves = 0
        self.client = self.call(lambda _: connect(ws_url, token=token).__aenter__())
        if race is not None:  # its board, so that its next move has the right number
            self.call(lambda c: c.resync(race))


@pytest.fixture
def restartable(tmp_path):
    """A server of its own, and its `restart()` (same port, same data folder)."""
    own = Restartable(tmp_path, **FLAGS)
    yield own.server, own.restart
    own.server.stop()


def watched_race(browser, srv: Server, bots: list[Bot], width: int, height: int):
    """Two bots racing Rouge et Noir, a page watching it: (context, page, race id, bots' tokens)."""
    a, b = Bot(srv.ws, "ann-bot"), Bot(srv.ws, "ben-bot")
    bots += [a, b]
    rid = a.call(lambda c: c.create("rouge-et-noir", seats=2, time_limit_s=300)).race
    b.call(lambda c: c.join(rid))
    a.call(lambda c: c.ready(rid))
    b.call(lambda c: c.ready(rid))
    wait_until(lambda: a.client.board(rid).status == "playing", what="the race started")
    a.call(lambda c: c.move(rid, "draw"))
    ctx = browser.new_context(viewport={"width": width, "height": height})
    page = ctx.new_page()
    page.set_default_timeout(DEADLINE * 1000)
    page.add_init_script("localStorage.setItem('solrace.name', 'looker')")
    page.goto(srv.http + f"/#watch={rid}")
    page.wait_for_selector(".net.online")
    expect(page.locator("#race-status")).to_have_text("running")
    page.wait_for_function("document.querySelectorAll('.spec-board').length === 2")
    tokens = (a.client.token, b.client.token)
    a.close()
    b.close()
    bots.clear()
    return ctx, page, rid, tokens


def away(ctx, page, restart) -> Server:
    """The server stops while the page cannot reach it, and starts again; the page stays away."""
    ctx.set_offline(True)  # new sockets fail; the one open goes with the server
    srv = restart()
    page.wait_for_function("window.solrace.conn.status !== 'online'")
    return srv


def moves_shown(page, player: str) -> str:
    return page.locator(f'#players li[data-player="{player}"] .moves').inner_text()


@pytest.mark.parametrize(("width", "height"), [(390, 844), (1280, 800)])
def test_a_race_that_ended_while_away_shows_finished_with_its_ranking(
    browser, restartable, bots, width, height
):
    srv, restart = restartable
    ctx, page, rid, tokens = watched_race(browser, srv, bots, width, height)
    try:
        srv = away(ctx, page, restart)
        a, b = TokenBot(srv.ws, tokens[0], rid), TokenBot(srv.ws, tokens[1], rid)
        bots += [a, b]
        b.call(lambda c: c.move(rid, "draw"))
        b.call(lambda c: c.move(rid, "draw"))
        a.call(lambda c: c.finish(rid))
        b.call(lambda c: c.finish(rid))
        ctx.set_offline(False)
        page.wait_for_selector(".net.online", timeout=2 * DEADLINE * 1000)
        expect(page.locator("#race-status")).to_have_text("finished")
        expect(page.locator("#result-panel")).to_be_visible()
        rows = page.locator("#result-panel table.ranking tbody tr")
        expect(rows).to_have_count(2)
        # the ranking is the race's: ben made two moves, ann one
        expect(page.locator(f'#result-panel tr[data-player="{b.client.player}"] td').nth(4)).to_have_text("2")
        expect(page.locator(f'#result-panel tr[data-player="{a.client.player}"] td').nth(4)).to_have_text("1")
        # the side panel is ranked too, with the counts the race ended with
        expect(page.locator("#players li .rank")).to_have_count(2)
        assert moves_shown(page, b.client.player) == "2 moves"
        # no "boards are shown late" note over a race that is over
        expect(page.locator(".delay-note")).to_have_count(0)
        # nor the boards from before the drop, without the moves made since (ben's said
        # "0 moves" beside the ranking's 2, under "Boards 0 s behind"): none, as on a finished
        # race opened afresh
        expect(page.locator(".spec-board")).to_have_count(0)
        expect(page.locator("#boards-behind")).to_be_hidden()
        shot(page, f"watch-reconnect-ended-{width}", full_page=True)
    finally:
        ctx.close()


def test_moves_made_while_away_show_once_back(browser, restartable, bots):
    srv, restart = restartable
    ctx, page, rid, tokens = watched_race(browser, srv, bots, 1280, 800)
    try:
        srv = away(ctx, page, restart)
        a, b = TokenBot(srv.ws, tokens[0], rid), TokenBot(srv.ws, tokens[1], rid)
        bots += [a, b]
        for _ in range(3):
            b.call(lambda c: c.move(rid, "draw"))
        ctx.set_offline(False)
        page.wait_for_selector(".net.online", timeout=2 * DEADLINE * 1000)
        expect(page.locator(f'#players li[data-player="{b.client.player}"] .moves')).to_have_text("3 moves")
        expect(page.locator(f'#players li[data-player="{a.client.player}"] .moves')).to_have_text("1 move")
        expect(page.locator("#race-status")).to_have_text("running")
        # ben's board, one spectator delay late, shows his three draws too
        expect(page.locator(f'.spec-board[data-player="{b.client.player}"] .spec-name')).to_contain_text(
            "3 moves"
        )
        # and the race goes on live: a move now shows
        a.call(lambda c: c.move(rid, "draw"))
        expect(page.locator(f'#players li[data-player="{a.client.player}"] .moves')).to_have_text("2 moves")
        shot(page, "watch-reconnect-moves", full_page=True)
    finally:
        ctx.close()
