"""On a phone (390x844), an arena race's countdown keeps clear of the side panel's controls: it sat
over the side panel, just above the Berserk button a player has the countdown's seconds to press.
Screenshots: test-artifacts/web/arena-countdown-phone-*.png."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from protocol import messages as m

from .arena_races import arena_server
from .conftest import shot
from .test_hint_note_phone import meet

pytestmark = pytest.mark.timeout(180)


@pytest.fixture(scope="module")
def web_server(tmp_path_factory):
    """Arenas made by clients, none scheduled; a countdown long enough to look at under load."""
    srv = arena_server(tmp_path_factory.mktemp("web-arena-countdown"), countdown_ms=15000)
    yield srv
    srv.stop()


@pytest.mark.parametrize(("width", "height"), [(390, 844), (1280, 800)])
def test_the_countdown_covers_no_side_control(new_page, make_bot, width, height):
    arena = f"cd-cup-{width}"
    rival = make_bot(f"cd-rival-{width}")
    rival.call(
        lambda c: c.request(
            m.ArenaCreate(
                arena=arena, game="rouge-et-noir", duration_ms=120_000, time_limit_s=60, name="Countdown Cup"
            )
        )
    )
    page = new_page(f"cd-{width}", width=width, height=height)
    page.goto(page.url.split("#")[0] + f"#arena={arena}")
    page.click("#arena-join")
    page.wait_for_selector("#arena-withdraw")
    rival.call(lambda c: c.request(m.ArenaJoin(arena=arena)))
    page.wait_for_url(re.compile(r"#race="), timeout=30_000)
    expect(page.locator("#countdown")).to_be_visible()
    expect(page.locator("#race-berserk")).to_be_visible()
    shot(page, f"arena-countdown-phone-{width}", full_page=True)
    # the countdown meets no control of the side panel (Berserk, the links under it)
    seen = page.evaluate(
        """() => { const box = (e) => { const r = e.getBoundingClientRect(); return { x: r.x, y: r.y, w: r.width, h: r.height }; };
                   return { countdown: box(document.querySelector("#countdown")),
                            controls: [...document.querySelectorAll("aside.side button, aside.side a[href], aside.side input")]
                              .filter((e) => e.checkVisibility()).map((e) => ({ what: e.id || e.textContent, box: box(e) })) }; }"""
    )
    assert seen["controls"], seen
    for control in seen["controls"]:
        assert not meet(seen["countdown"], control["box"]), (seen["countdown"], control)
    page.locator("#race-berserk").click(trial=True)  # the one a tap reaches
    rival.call(lambda c: c.request(m.ArenaWithdraw(arena=arena)))
