"""The lobby's Join box takes every link of a race this client makes. Its pattern took the last
`&…` word of a link as the race id, so that it refused, as "not a race link or id", the lobby's
own "Analysis" link (`#race=ID&analysis`), an arena's "Watch it" (`#watch=ID&arena=…`) and a
replay at a step (`#replay=ID&step=N`). Each link now opens the page it names: a race's page,
watching (not a seat: what a watch link means), a replay at its step."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.timeout(120)

RID = "r0123456789abcdef"

# what is pasted (after the server's address, or alone) -> the page's hash it opens
LINKS = [
    (f"/#race={RID}", f"#race={RID}"),
    (f"/#race={RID}&analysis", f"#race={RID}&analysis"),
    (f"/#race={RID}&invite=s3cr3t-W0rd_x", f"#race={RID}&invite=s3cr3t-W0rd_x"),
    (f"/#race={RID}&invite=abc&analysis", f"#race={RID}&invite=abc&analysis"),
    (f"/#watch={RID}", f"#watch={RID}"),
    (f"/#watch={RID}&arena=hourly-fours-up-1", f"#watch={RID}&arena=hourly-fours-up-1"),
    (f"/#watch={RID}&invite=abc", f"#watch={RID}&invite=abc"),
    (f"/#replay={RID}", f"#replay={RID}"),
    (f"/#replay={RID}&step=3", f"#replay={RID}&step=3"),
    (
        f"/#replay={RID}&daily=fours-up&date=2024-05-01",
        f"#replay={RID}&daily=fours-up&date=2024-05-01",
    ),
    (f"#race={RID}", f"#race={RID}"),
    (f"race={RID}&invite=abc", f"#race={RID}&invite=abc"),
    (f"  {RID}  ", f"#race={RID}"),
    (f"{RID}&invite=abc", f"#race={RID}&invite=abc"),
]

NOT_A_LINK = "That is not a race link or id (an id is an r and 16 hex digits): check what you pasted."


def join(page, text: str) -> None:
    page.fill(".join-form input[name=link]", text)
    page.click(".join-form button[type=submit]")


@pytest.mark.parametrize(("pasted", "opens"), LINKS)
def test_the_join_box_opens_the_page_a_link_names(new_page, web_server, pasted, opens):
    page = new_page("joiner")
    join(page, (web_server.http + pasted) if pasted.startswith("/") else pasted)
    page.wait_for_url(f"**{opens}")
    assert page.evaluate("location.hash") == opens
    assert page.evaluate("globalThis.__toasts") == []


@pytest.mark.parametrize(
    "pasted",
    ["r0123456789abcde", f"/#race={RID}x&analysis", "/#watch=hello&arena=a", "/#arenas", "hello", "/#race="],
)
def test_the_join_box_still_refuses_what_names_no_race(new_page, web_server, pasted):
    page = new_page("refuser")
    join(page, (web_server.http + pasted) if pasted.startswith("/") else pasted)
    page.wait_for_function("globalThis.__toasts.length > 0")
    assert page.evaluate("globalThis.__toasts") == [NOT_A_LINK]
    assert page.evaluate("location.hash") == ""
    expect(page.locator(".join-form")).to_be_visible()
