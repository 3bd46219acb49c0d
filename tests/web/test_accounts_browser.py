"""Accounts and rated races in headless Chromium against a real `solrace serve`.

Alice claims her player as an account; Bob claims his in one browser, then
logs in from a second browser context; Alice creates a rated race, Bob joins
it by its link, both play it to its end, and both see their new rating and
the race on their profiles; the rating leaderboard and logging out.
Screenshots: test-artifacts/web/.
"""

from __future__ import annotations

import re

import pytest

from .accounts_pages import base, claim, create_rated_race, login, race_it_by_its_link
from .conftest import shot

pytestmark = pytest.mark.timeout(180)

GAME = "racing-aces"


def rating_card(page) -> dict:
    card = page.locator(f'.rating-card[data-game="{GAME}"]')
    return {
        "rating": int(card.locator(".rating-value").inner_text()),
        "races": card.locator(".rated-races").inner_text(),
    }


def test_two_accounts_race_a_rated_race(new_page):
    alice = new_page("alice")
    alice_id = claim(alice, "alice", "alice's secret")
    assert alice.evaluate("localStorage.getItem('solrace.token')").startswith(alice_id + ".")
    shot(alice, "account-profile-new")

    first = new_page("bob")
    bob_id = claim(first, "bob", "bob's secret")
    bob = new_page("someone")  # another browser: a guest until it logs in
    assert bob.evaluate("window.solrace.app.me.player") != bob_id
    assert login(bob, "bob", "bob's secret") == bob_id
    assert bob.evaluate("window.solrace.app.me.name") == "bob"
    before = rating_card(bob)
    assert before["races"].startswith("0 rated races")

    # Alice creates a rated race from the lobby.
    alice.goto(alice.url.split("#")[0] + "#/")
    alice.check("#rated-toggle")
    alice.reload()  # the choice is kept (a returning player found it unticked at every visit)
    alice.wait_for_selector("#rated-toggle")
    assert alice.is_checked("#rated-toggle")
    rid, link = create_rated_race(alice, GAME)

    race_it_by_its_link(alice, bob, bob_id, link)
    for page in (alice, bob):
        # the rating change arrives as an event; the toast says it
        page.wait_for_selector(".toast:has-text('Rated')", timeout=20000)
        # and the result panel shows it
        page.wait_for_selector("#result-panel #rating-change:has-text('Rating: 1000? →')")
    shot(alice, "account-rated-race-end")

    # Both profiles show the new rating and the race, with its replay link.
    for page in (alice, bob):
        page.goto(page.url.split("#")[0] + "#account")
        page.wait_for_selector(f'#rated-races tr[data-race="{rid}"]')
        card = rating_card(page)
        assert card["races"].startswith("1 rated race")
        row = page.locator(f'#rated-races tr[data-race="{rid}"]')
        assert row.locator(f'a[href="#replay={rid}"]').count() == 1
        # from the new account's provisional 1000 to the rating the card shows
        change = re.search(r"(\d+)\? → (\d+)\?", row.inner_text())
        assert change and int(change.group(1)) == before["rating"] == 1000
        assert int(change.group(2)) == card["rating"]
    shot(bob, "account-profile-after-rated-race", full_page=True)

    # Alice looks at Bob's profile, and at the game's leaderboard.
    alice.goto(alice.url.split("#")[0] + f"#profile={bob_id}")
    alice.wait_for_selector(f'#profile[data-player="{bob_id}"] #rated-races tr[data-race="{rid}"]')
    alice.goto(alice.url.split("#")[0] + f"#ratings={GAME}")
    alice.wait_for_selector("#rating-board")

    # Logging out on Bob's second browser makes it a new guest; his first is still logged in.
    bob.goto(bob.url.split("#")[0] + "#account")
    bob.click("#logout-btn")
    bob.wait_for_selector("#claim-form")
    bob.wait_for_function(f"window.solrace.app.me && window.solrace.app.me.player !== {bob_id!r}")
    first.goto(first.url.split("#")[0] + "#account")
    first.wait_for_selector(f'#rated-races tr[data-race="{rid}"]')


def test_the_claim_form_offers_the_guest_name(new_page):
    """A guest who keeps their name types only a password: the claim form has the name (known
    from the welcome, also when the page opens on #account), unless the server would refuse it
    as an account's."""
    page = new_page("keeper")
    page.goto(base(page) + "#account")
    page.wait_for_selector("#claim-form")
    assert page.locator("#claim-form input[name=account]").input_value() == "keeper"
    assert page.locator("#login-form input[name=account]").input_value() == ""
    page.reload()  # drawn before the welcome, filled once it comes
    # (the form may not be drawn yet when the page is asked: no field is not an error)
    page.wait_for_function("document.querySelector('#claim-form input[name=account]')?.value === 'keeper'")
    page.fill("#claim-form input[name=password]", "keeper's secret")
    page.click("#claim-form button[type=submit]")
    page.wait_for_selector('#profile h1:has-text("keeper")')
    assert page.evaluate("window.solrace.app.me.name") == "keeper"

    spaced = new_page("Zoë K")  # no account may be named so: the field stays empty
    spaced.goto(base(spaced) + "#account")
    spaced.wait_for_selector("#claim-form")
    spaced.wait_for_function("window.solrace.app.me && window.solrace.app.me.name === 'Zoë K'")
    assert spaced.locator("#claim-form input[name=account]").input_value() == ""
