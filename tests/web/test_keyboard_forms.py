"""The lobby's forms and the account forms for a keyboard and a screen reader (an accessibility
audit): a tile's "Create race…" and "Race a bot…" say whether their form is open and name their
game, a key press opens the form with the focus in it and Escape closes it back onto its button;
a refused account form says why in the form, tied to its fields, not only in a passing toast."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.timeout(120)


def active(page) -> dict:
    return page.evaluate(
        """() => { const a = document.activeElement;
             return { tag: a.tagName, act: a.dataset.act || null, name: a.name || null,
                      expanded: a.getAttribute('aria-expanded') }; }"""
    )


def test_a_tiles_form_opens_and_closes_from_the_keyboard(new_page):
    page = new_page("keyboarder")
    tile = '.tile[data-game="fours-up"]'
    button = page.locator(f'{tile} [data-act="create"]')
    assert button.get_attribute("aria-expanded") == "false"
    assert "Fours Up" in (button.get_attribute("aria-label") or "")
    button.focus()
    page.keyboard.press("Enter")
    assert button.get_attribute("aria-expanded") == "true"
    assert active(page)["name"] == "seats"  # the focus went on into the form
    page.keyboard.press("Escape")
    assert page.locator(f"{tile} .create-form").first.is_hidden()
    assert active(page) == {"tag": "BUTTON", "act": "create", "name": None, "expanded": "false"}
    # a mouse opens it too, leaving the focus where the click put it
    page.click(f'{tile} [data-act="bot"]')
    assert page.locator(f'{tile} [data-act="bot"]').get_attribute("aria-expanded") == "true"
    assert page.locator(f"{tile} .bot-form").is_visible()


def test_a_refused_login_says_why_in_the_form(new_page):
    page = new_page("forgetful")
    page.goto(page.url.split("#")[0] + "#account")
    page.wait_for_selector("#login-form")
    page.fill("#login-form input[name=account]", "nobody-here")
    page.fill("#login-form input[name=password]", "not the password")
    page.click("#login-form button[type=submit]")
    error = page.wait_for_selector("#login-form .form-error[role=alert]")
    assert error.inner_text().strip()
    name = page.locator("#login-form input[name=account]")
    assert name.get_attribute("aria-invalid") == "true"
    assert name.get_attribute("aria-describedby") == "login-form-error"
    assert active(page)["name"] == "account"
    # trying again clears it first
    page.click("#login-form button[type=submit]")
    page.wait_for_selector("#login-form .form-error[role=alert]")


def test_the_first_tab_stop_skips_the_header(new_page):
    page = new_page("skipper")
    page.evaluate("document.activeElement && document.activeElement.blur()")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "skip"
    assert page.locator("#skip").bounding_box()["y"] >= 0  # shown once focused
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "main"


def test_a_page_change_leaves_the_focus_in_a_field_being_typed(new_page):
    """A quick match found (or any page change the server makes) while the header's name is being
    edited: the focus stays there, and no half-typed name is saved."""
    page = new_page("typist")
    page.focus("#name")
    page.keyboard.press("End")
    page.keyboard.type("Zed")
    page.evaluate("location.hash = '#watch'")
    page.wait_for_function("document.title.startsWith('Live races')")
    assert page.evaluate("document.activeElement.id") == "name"
    assert page.evaluate("localStorage.getItem('solrace.name')") == "typist"


def test_the_lobby_drawn_again_keeps_the_focus_and_the_typed_link(new_page):
    """The lobby is drawn again from scratch at the welcome, when the daily probe answers and at a
    reconnect (the probe's answer adds a "Daily" link to each tile): a keyboard user in a tile's
    form kept its open state but lost the focus to the page's body, and a link half typed into the
    Join box was gone."""
    page = new_page("steady")
    tile = '.tile[data-game="rouge-et-noir"]'
    page.locator(f'{tile} [data-act="create"]').focus()
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")  # from the seats on to the clock
    assert active(page)["name"] == "limit"
    redraw = """async () => { const lobby = await import("./js/lobby.js"); lobby.renderLobby(); }"""
    page.evaluate(redraw)
    assert active(page)["name"] == "limit"
    assert page.evaluate("document.activeElement.closest('.tile').dataset.game") == "rouge-et-noir"
    box = page.locator(".join-form input[name=link]")
    box.focus()
    page.keyboard.type("r0123")
    page.evaluate(redraw)
    assert box.input_value() == "r0123"
    assert active(page)["name"] == "link"
    page.keyboard.type("4")  # the caret where it was: at the end
    assert box.input_value() == "r01234"
