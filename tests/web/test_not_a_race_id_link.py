"""A link whose "race" is no race id at all (`#race=hello`, `#watch=hello`) says so, as the Join
box and the replay page do, rather than the server's "no such race (it may have expired)": that
text was never a race, and nothing expired. A well-shaped id the server does not know still gets
the server's word. Screenshot: test-artifacts/web/not-a-race-id-race.png."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .conftest import shot

pytestmark = pytest.mark.timeout(120)

NOT_A_RACE_ID = "This is not a race id (an r and 16 hex digits): check the link."
NO_SUCH_RACE = "There is no such race (it may have expired)."


@pytest.mark.parametrize("route", ["race", "watch"])
@pytest.mark.parametrize("text", ["hello", "r2070f124"])
def test_a_link_to_a_text_that_is_no_race_id_says_so(new_page, route, text):
    page = new_page("linker")
    page.goto(page.url.split("#")[0] + f"#{route}={text}")
    heading = page.locator("#notice .error-panel h2")
    expect(heading).to_have_text(NOT_A_RACE_ID)
    assert "expired" not in page.locator("#main").inner_text()
    shot(page, f"not-a-race-id-{route}")


@pytest.mark.parametrize("route", ["race", "watch"])
def test_a_race_id_the_server_does_not_know_is_no_such_race(new_page, route):
    page = new_page("linker")
    page.goto(page.url.split("#")[0] + f"#{route}=r0123456789abcdef")
    expect(page.locator("#notice .error-panel h2")).to_have_text(NO_SUCH_RACE)
