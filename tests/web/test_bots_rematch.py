"""Racing a bot and rematches in headless Chromium against a real `solrace serve`,
whose own `solrace bots` worker plays the bots (quick ones here: no pause between moves).

Scenarios: a quick-match that finds nobody gets a bot; "Race a bot" from a game's tile, raced to the end (a ranking with the bot
shown as a bot), then "Rematch", which seats a new bot and starts a new deal; two people
race, one offers a rematch, the other accepts it, and the new race starts."""

from __future__ import annotations

import asyncio
import re
from concurrent.futures import ThreadPoolExecutor

import pytest
from private_redis import private_redis_url
from waiting import DEADLINE, wait_until

from server.handlers.bots import WORKER_ALIVE_MS
from server.storage.bots import BotQueue, connect, now_ms

from .conftest import Server, shot
from .test_browser import create_in_ui, play_by_clicking, race_id, wait_board

pytestmark = pytest.mark.timeout(180)


@pytest.fixture(scope="module")
def web_server(tmp_path_factory):
    srv = Server(
        tmp_path_factory.mktemp("web-bots"),
        countdown_ms=1000,
        bot_move_ms=30,
        bot_think_ms=20,
        quick_bot_after_s=2,
    )
    try:
        wait_for_bot_worker(srv)
        yield srv
    finally:
        srv.stop()


def wait_for_bot_worker(srv: Server) -> None:
    """Until the server's bot worker has asked for work: on a loaded machine the worker process
    takes a while to start, and a `bot` request before that is refused (no-bots)."""
    url = wait_until(
        lambda: private_redis_url(srv.log_path.read_text()), what="the server's Redis in its log"
    )

    async def worker_alive() -> bool:
        redis = connect(url)
        try:
            return await BotQueue(redis).workers_alive(await now_ms(redis), WORKER_ALIVE_MS) > 0
        finally:
            await redis.aclose()

    def alive() -> bool:  # on a thread of its own: playwright owns this thread's event loop
        with ThreadPoolExecutor(1) as pool:
            return pool.submit(asyncio.run, worker_alive()).result()

    wait_until(alive, timeout=2 * DEADLINE, interval=0.2, what="a bot worker")


def finish_in_ui(page) -> None:
    """Stop playing ("Finish my game"); the result shows once every player is done."""
    if page.locator("#finish-btn").count():
        page.once("dialog", lambda d: d.accept())
        page.click("#finish-btn")


def bot_row(page) -> str:
    """The player id of the (one) bot in the race's player list, once it is there."""
    page.wait_for_selector("#players li .bot-badge")
    return page.evaluate("window.solrace.app.race.players.find(p => p.player.startsWith('bot-')).player")


def test_race_a_bot_to_the_end_then_rematch(new_page):
    page = new_page("ada")
    tile = '.tile[data-game="racing-aces"]'
    page.click(f'{tile} [data-act="bot"]')
    page.select_option(f'{tile} select[name="level"]', "search")
    shot(page, "bot-form")
    page.click(f'{tile} [data-act="bot-go"]')
    rid = race_id(page)
    bot = bot_row(page)
    assert page.locator(f'#players li[data-player="{bot}"] .pname').inner_text().startswith("Search bot")
    wait_board(page)  # both were ready: the countdown ran and the board is drawn
    played = play_by_clicking(page, 4)
    assert played
    shot(page, "bot-race")
    # the bot plays on its own; we stop, and the race ends when the bot is done
    finish_in_ui(page)
    page.wait_for_selector("#result-panel", timeout=2 * DEADLINE * 1000)
    rows = page.locator("#result-panel .ranking tbody tr")
    assert rows.count() == 2
    assert page.locator(f'#result-panel tr[data-player="{bot}"]').count() == 1
    me = page.evaluate("window.solrace.app.me.player")
    assert page.locator(f'#result-panel tr[data-player="{me}"]').count() == 1
    shot(page, "bot-race-result", full_page=True)

    page.click("#rematch-btn")
    page.wait_for_url(re.compile(r"#race=(?!" + rid + r")"))
    new_rid = race_id(page)
    assert new_rid != rid
    bot2 = bot_row(page)
    assert bot2 != bot
    race = page.evaluate("window.solrace.app.race")
    assert (race["game"], race["seats"], race["private"]) == ("racing-aces", 2, True)
    wait_board(page)
    page.wait_for_function("window.solrace.app.you && window.solrace.app.you.view")
    shot(page, "bot-rematch")


def test_two_people_rematch(new_page):
    alice = new_page("alice")
    rid = create_in_ui(alice, "fours-up", 2)
    bob = new_page("bob")
    bob.goto(alice.locator("#share-link").input_value())
    bob.wait_for_selector("#ready-btn")
    bob.click("#ready-btn")
    bob_id = bob.evaluate("window.solrace.app.me.player")
    alice.wait_for_selector(f'#players li[data-player="{bob_id}"] .pill.p-ready')
    alice.click("#ready-btn")
    for page in (alice, bob):
        page.wait_for_function("window.solrace.app.you && window.solrace.app.you.view")
    finish_in_ui(alice)
    finish_in_ui(bob)
    for page in (alice, bob):
        page.wait_for_selector("#result-panel", timeout=2 * DEADLINE * 1000)

    alice.click("#rematch-btn")
    alice.wait_for_url(re.compile(r"#race=(?!" + rid + r")"))
    new_rid = race_id(alice)
    bob.wait_for_selector("#accept-rematch")  # the offer, in bob's result panel
    shot(bob, "rematch-offer", full_page=True)
    bob.click("#accept-rematch")
    bob.wait_for_url(f"**#race={new_rid}")
    # both accepted and are ready: the new race starts, with a new deal
    for page in (alice, bob):
        page.wait_for_function(
            f"window.solrace.app.race && window.solrace.app.race.race === '{new_rid}' && window.solrace.app.you && window.solrace.app.you.view",
            timeout=30000,
        )
    race = alice.evaluate("window.solrace.app.race")
    assert (race["game"], race["seats"], race["private"]) == ("fours-up", 2, False)
    assert {p["player"] for p in race["players"]} == {alice.evaluate("window.solrace.app.me.player"), bob_id}
    shot(alice, "rematch-started")


def test_lonely_quick_match_gets_a_bot(new_page):
    page = new_page("lonely")
    page.click('.tile[data-game="double-aces-and-kings"] [data-act="quick"]')
    page.wait_for_selector("#unqueue")
    assert "a bot joins after 2 s" in page.locator("#banner").inner_text()
    race_id(page)  # seated with a bot
    bot = bot_row(page)
    assert page.locator(f'#players li[data-player="{bot}"] .pname').inner_text() == "Greedy bot"
    wait_board(page)
    page.wait_for_function("window.solrace.app.you && window.solrace.app.you.view")
    shot(page, "quick-bot")
