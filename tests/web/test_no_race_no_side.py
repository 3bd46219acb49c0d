"""A race or watch page with no race to show (a race id the server does not know, a text that is
no race id) has no side panel: it showed an empty "Race –:––" (or "Watching –:––") panel beside
the error, a clock and a title of nothing. The error takes the page's width. A race the server
knows but will not seat us in (full) keeps its side panel, with the race's name and players.
Screenshots: test-artifacts/web/no-race-no-side-ROUTE-WIDTH.png, race-full-side.png."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .conftest import shot

pytestmark = pytest.mark.timeout(120)


@pytest.mark.parametrize("width", [390, 1280])
@pytest.mark.parametrize("route", ["race", "watch"])
@pytest.mark.parametrize("text", ["r0123456789abcdef", "hello"])
def test_no_race_no_side_panel(new_page, route, width, text):
    page = new_page("lost", width=width, height=844 if width == 390 else 720)
    page.goto(page.url.split("#")[0] + f"#{route}={text}")
    panel = page.locator("#notice .error-panel")
    expect(panel).to_be_visible()
    expect(page.locator("#main .side")).to_be_hidden()
    assert "–:––" not in page.locator("#main").inner_text()
    # the stage alone: the error panel as wide as the page's content
    widths = page.evaluate(
        "() => [document.querySelector('#notice .error-panel').getBoundingClientRect().width,"
        " document.querySelector('#main .race-page').getBoundingClientRect().width]"
    )
    assert widths[0] >= widths[1] - 1, widths
    shot(page, f"no-race-no-side-{route}-{width}")


def test_a_full_race_keeps_its_side_panel(new_page, make_bot):
    host = make_bot("Solo")
    rid = host.call(lambda c: c.create("fours-up", seats=1, time_limit_s=120)).race
    page = new_page("late")
    page.goto(page.url.split("#")[0] + f"#race={rid}")
    expect(page.locator("#notice .error-panel h2")).to_have_text("This race is full.")
    expect(page.locator("#main .side")).to_be_visible()
    expect(page.locator("#race-title")).to_have_text("Fours Up")
    expect(page.locator(f'#players li[data-player="{host.client.player}"]')).to_be_visible()
    shot(page, "race-full-side")
