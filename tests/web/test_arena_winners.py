"""The end of an arena in headless Chromium: the winners on the arena page, and the
podium place in the winner's profile."""

from __future__ import annotations

import threading

import pytest

from protocol import messages as m

from .conftest import Server, shot

pytestmark = pytest.mark.timeout(180)


@pytest.fixture(scope="module")
def web_server(tmp_path_factory):
    """This module's server: clients may create arenas, none is scheduled, fast loops."""
    srv = Server(
        tmp_path_factory.mktemp("web-arena-winners"),
        countdown_ms=1200,
        arena_create=1,
        arena_schedule="off",
        arena_tick_ms=200,
        arena_update_ms=200,
    )
    yield srv
    srv.stop()


async def race_once(c, arena: str, *, moves: int) -> None:
    """Join, get paired, withdraw (the race still counts), make `moves` draws, finish."""
    await c.request(m.ArenaJoin(arena=arena))
    snap = await c.wait_for(
        m.RaceSnapshot, lambda s: any(p.player == c.player for p in s.players), timeout=30
    )
    await c.request(m.ArenaWithdraw(arena=arena))
    await c.wait_for(m.Started, lambda ev: ev.race == snap.race, timeout=30)
    for _ in range(moves):
        await c.move(snap.race, "draw")
    await c.finish(snap.race)
    await c.wait_for(m.End, lambda ev: ev.race == snap.race, timeout=30)


def test_winners_on_the_arena_page_and_in_the_profile(new_page, make_bot):
    ada, bob = make_bot("cup-ada"), make_bot("cup-bob")
    ada.call(lambda c: c.request(m.Claim(name="cup-ada", password="correct horse")))
    ada.call(
        lambda c: c.request(
            m.ArenaCreate(arena="web-cup", game="racing-aces", duration_ms=10_000, name="Web Cup")
        )
    )
    # ada's one move wins (among equal cards home, more moves rank first); bob never moves (absent: 0)
    threads = [
        threading.Thread(target=lambda: ada.call(lambda c: race_once(c, "web-cup", moves=1), timeout=60)),
        threading.Thread(target=lambda: bob.call(lambda c: race_once(c, "web-cup", moves=0), timeout=60)),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    page = new_page("cup-fan")
    page.goto(page.url.split("#")[0] + "#arena=web-cup")
    page.wait_for_selector("#arena-standings")
    # the arena ends 10 s after its creation; the page shows the final standings and winners
    page.wait_for_selector('#arena-winners li[data-rank="1"]', timeout=60_000)
    winners = page.locator("#arena-winners").inner_text()
    assert "cup-ada" in winners and "cup-bob" not in winners
    shot(page, "arena-winners")

    page.click('#arena-winners a[href^="#profile="]')
    page.wait_for_selector('#arena-podiums tr[data-arena="web-cup"]')
    assert "1 of 2" in page.locator("#arena-podiums").inner_text()
    shot(page, "profile-arena-podium", full_page=True)
