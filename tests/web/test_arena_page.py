"""The arena pages in headless Chromium: the list, live standings while bots race, the
featured race opening in the spectate view, and joining: the paired race opens by itself."""

from __future__ import annotations

import re

import pytest
from must import must

from client.bots.strategies import make
from protocol import messages as m

from .conftest import Server, shot

pytestmark = pytest.mark.timeout(180)


@pytest.fixture(scope="module")
def web_server(tmp_path_factory):
    """This module's server: clients may create arenas, none is scheduled, fast loops."""
    srv = Server(
        tmp_path_factory.mktemp("web-arena"),
        countdown_ms=1200,
        spectator_delay_ms=1500,
        spectator_flush_ms=200,
        arena_create=1,
        arena_schedule="off",
        arena_tick_ms=200,
        arena_update_ms=200,
    )
    yield srv
    srv.stop()


async def _one_arena_race(c, arena: str, delay_ms: float = 50) -> str:
    """Join ``arena``, play the first race it pairs us into to its end; its id. `delay_ms` keeps
    the bot under the server's RATE (30 messages/s): at 30 ms its moves alone outran the credits
    in a long race, and the refused ones cost resyncs."""
    from client.bots.online import BotResult, play_race

    await c.request(m.ArenaJoin(arena=arena))
    snap = await c.wait_for(
        m.RaceSnapshot, lambda s: any(p.player == c.player for p in s.players), timeout=30
    )
    await play_race(c, snap.race, make("greedy"), BotResult("bot"), delay_ms=delay_ms)
    await c.wait_for(m.End, lambda e: e.race == snap.race, timeout=60)
    await c.request(m.ArenaWithdraw(arena=arena))
    return snap.race


def test_arena_page_live_standings_featured_and_pairing(new_page, make_bot):
    host, a, b, rival = make_bot("host"), make_bot("arena-a"), make_bot("arena-b"), make_bot("rival")
    host.call(
        lambda c: c.request(
            m.ArenaCreate(arena="web-arena", game="racing-aces", duration_ms=120_000, time_limit_s=60)
        )
    )
    page = new_page("arena-fan")
    page.click("#nav-arena")
    page.wait_for_selector('tr.arena-row[data-arena="web-arena"]')
    shot(page, "arena-list")
    page.click('tr.arena-row[data-arena="web-arena"] a')
    page.wait_for_selector("#arena-standings")
    assert "left" in page.locator("#arena-left").inner_text()
    # nobody in it yet: the empty table says so
    assert page.locator("#arena-nobody").inner_text() == "Nobody has joined yet."

    # two bots race each other: the featured race appears, then the standings move, live
    import threading

    races: dict[str, str] = {}
    threads = [
        threading.Thread(
            target=lambda bot=bot: races.setdefault(
                bot.client.player, bot.call(lambda c: _one_arena_race(c, "web-arena"), timeout=120)
            )
        )
        for bot in (a, b)
    ]
    for t in threads:
        t.start()
    page.wait_for_selector('#arena-featured a[href^="#watch="]', timeout=30000)
    shot(page, "arena-featured")
    # the featured race opens in the spectate view
    featured = page.get_attribute("#arena-watch", "href")
    page.click("#arena-watch")
    page.wait_for_selector("#watch-page #boards")
    assert f"#watch={featured.split('=')[1].split('&')[0]}" in page.url
    shot(page, "arena-featured-watch")
    page.goto(page.url.split("#")[0] + "#arena=web-arena")
    page.wait_for_selector("#arena-standings")
    page.wait_for_function(
        "[...document.querySelectorAll('#arena-standings td.points')].some((td) => parseInt(td.textContent) > 0)",
        timeout=90000,
    )
    for t in threads:
        t.join(120)
    assert len(set(races.values())) == 1  # the two bots were paired together
    shot(page, "arena-standings")

    # join: a rival joins too, and the race we are paired into opens by itself
    page.click("#arena-join")
    page.wait_for_selector("#arena-withdraw")
    rival.call(lambda c: c.request(m.ArenaJoin(arena="web-arena")))
    page.wait_for_url(re.compile(r"#race="), timeout=30000)
    page.wait_for_selector("#board .pile", timeout=20000)
    rid = must(re.search(r"#race=([\w-]+)", page.url)).group(1)
    assert rid not in races.values()
    page.goto(page.url.split("#")[0] + "#arena=web-arena")
    page.wait_for_selector(f'#arena-current[href="#race={rid}"]')
    shot(page, "arena-joined")
