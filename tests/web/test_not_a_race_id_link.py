"""A link whose "race" is no race id at all (`#race=hello`, `#watch=hello`) says so, as the Join
box and the replay page do, rather than the server's "no such race (it may have expired)": that
text was never a race, and nothing expired. A well-shaped id the server does not know still gets
one sentence, the same on the race page, the watch page and the replay (words.NO_SUCH_RACE: the
first two said "no such race (it may have expired)", the replay "mistyped, or too old").
Screenshots: test-artifacts/web/not-a-race-id-race.png, no-such-race-ROUTE.png."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .conftest import shot

pytestmark = pytest.mark.timeout(120)

NOT_A_RACE_ID = "This is not a race id (an r and 16 hex digits): check the link."
NO_SUCH_RACE = "No race has this id: it may be mistyped, or too old to be kept."
# where each page says why it shows no race
ERROR = {"race": "#notice .error-panel h2", "watch": "#notice .error-panel h2", "replay": "#replay-error"}


@pytest.mark.parametrize("route", ["race", "watch"])
@pytest.mark.parametrize("text", ["hello", "r2070f124"])
def test_a_link_to_a_text_that_is_no_race_id_says_so(new_page, route, text):
    page = new_page("linker")
    page.goto(page.url.split("#")[0] + f"#{route}={text}")
    heading = page.locator("#notice .error-panel h2")
    expect(heading).to_have_text(NOT_A_RACE_ID)
    assert "expired" not in page.locator("#main").inner_text()
    shot(page, f"not-a-race-id-{route}")


def test_a_race_id_the_server_does_not_know_reads_alike_on_every_page(new_page):
    page = new_page("linker")
    # the one sentence, defined once
    assert page.evaluate("async () => (await import('/js/words.js')).NO_SUCH_RACE") == NO_SUCH_RACE
    for route, selector in ERROR.items():
        page.goto(page.url.split("#")[0] + f"#{route}=r0123456789abcdef")
        expect(page.locator(selector)).to_have_text(NO_SUCH_RACE)
        shot(page, f"no-such-race-{route}")
