"""The marks beside a name (words.js `nameMarks`) where the side panel is not: the phone's
race line under the board, the toasts that name a rival, and an account's profile heading;
in headless Chromium, each mark labelled for screen readers."""

from __future__ import annotations

import pytest

from protocol import messages as m

from .conftest import shot
from .test_browser import create_in_ui, race_against

pytestmark = pytest.mark.timeout(180)

PHONE = {"width": 360, "height": 640}


def labels(page, selector: str) -> list[str]:
    """The accessible labels of the marks inside the first element `selector` finds."""
    return page.locator(selector).first.evaluate(
        "(el) => [...el.querySelectorAll('.acct-badge, .bot-badge')].map((b) => b.getAttribute('aria-label'))"
    )


def test_the_rivals_line_and_a_rivals_toast_mark_an_account(new_page, make_bot):
    page = new_page("marked-me")
    rid = create_in_ui(page, "fours-up", 2)
    rival = make_bot("Marka")
    assert rival.call(lambda c: c.request(m.Claim(name="Marka", password="correct horse"))).name == "Marka"
    race_against(page, rival, rid)

    # On a phone the side panel is below the board: the race's line names the rival, marked.
    page.set_viewport_size(PHONE)
    line = f'#mini-rivals .mini-rival[data-player="{rival.client.player}"]'
    page.wait_for_selector(line)
    assert page.locator(f"{line} .mini-name").inner_text() == "Marka"
    assert labels(page, line) == ["account"]
    shot(page, "phone360-rival-account-mark")
    # Their cards home stand apart from the name and its mark ("Marka ✓ 0", not "Marka✓0").
    gaps = page.locator(line).evaluate(
        """(el) => { const b = [...el.children].map((c) => c.getBoundingClientRect());
                     return b.slice(1).map((r, i) => r.left - b[i].right); }"""
    )
    assert len(gaps) == 2 and min(gaps) >= 2, gaps

    # The toast of the rival's finish marks the name as well; the line says they are done.
    rival.call(lambda c: c.finish(rid))
    page.wait_for_function(f"document.querySelector('{line} .mini-count')?.textContent.endsWith(' done')")
    toast = page.locator(".toast", has_text="finished with")
    toast.wait_for()
    assert toast.inner_text().startswith("Marka")
    assert labels(page, ".toast:has-text('finished with')") == ["account"]
    shot(page, "toast-rival-account-mark")


def test_a_profile_heading_marks_the_account(new_page, make_bot):
    owner = make_bot("Profiled")
    assert (
        owner.call(lambda c: c.request(m.Claim(name="Profiled", password="correct horse"))).name == "Profiled"
    )
    page = new_page("reader")
    page.goto(page.url.split("#")[0] + f"#profile={owner.client.player}")
    page.wait_for_selector('#profile h1:has-text("Profiled")')
    assert labels(page, "#profile h1") == ["account"]


def test_a_rematch_offer_marks_the_account_that_offers_it(new_page, make_bot):
    """The offer's banner (away from its race's page) and the result panel's "Accept …'s
    rematch" button (on that page) each mark the account that asked."""
    page = new_page("offered")
    rid = create_in_ui(page, "fours-up", 2)
    rival = make_bot("Rematcha")
    assert (
        rival.call(lambda c: c.request(m.Claim(name="Rematcha", password="correct horse"))).name == "Rematcha"
    )
    race_against(page, rival, rid)
    rival.call(lambda c: c.finish(rid))
    page.once("dialog", lambda d: d.accept())
    page.click("#finish-btn")
    page.wait_for_selector("#result-panel")

    # Away from the race: the offer comes as a banner.
    page.click("#result-panel a[href='#/']")
    page.wait_for_function("window.solrace.app.route.kind === 'lobby'")
    rival.call(lambda c: c.request(m.Rematch(race=rid)))
    banner = page.locator(".rematch-offer")
    banner.wait_for()
    assert banner.inner_text().startswith("Rematcha")
    assert labels(page, ".rematch-offer") == ["account"]
    shot(page, "rematch-banner-account-mark")

    # Back on the race's page: the result panel's button names and marks who offers.
    page.goto(page.url.split("#")[0] + f"#race={rid}")
    button = page.locator("#accept-rematch")
    button.wait_for()
    assert " ".join(button.inner_text().split()) == "Accept Rematcha✓'s rematch"
    assert labels(page, "#accept-rematch") == ["account"]
    # The offer shows once there: its banner gave way to the button (and comes back elsewhere).
    page.wait_for_function("!document.querySelector('#banner .rematch-offer')")
    shot(page, "rematch-button-account-mark", full_page=True)
    page.goto(page.url.split("#")[0] + "#/")
    banner.wait_for()
