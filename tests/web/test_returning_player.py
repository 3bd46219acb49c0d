"""A returning player in headless Chromium against a real `solrace serve`: what the page
says when the server no longer knows its token, and whether the header says who it is.

- An account logged out everywhere from another browser: the first browser says so, offers
  Log in, and its new guest does not take the account's name.
- A guest whose session the server forgot (its key deleted from Redis, as SESSION_TTL does
  after a week): the page says the session expired, once, and the note can be dismissed.
- "Log out" gives the new guest a name of its own.
- The header shows "Logged in as" and an account marker, with the name box read-only.
Screenshots: test-artifacts/web/.
"""

from __future__ import annotations

import pytest
import redis
from playwright.sync_api import expect
from private_redis import private_redis_url
from waiting import DEADLINE, wait_until

from server.storage.keys import session_key

from .conftest import shot
from .test_accounts_browser import claim, login

pytestmark = pytest.mark.timeout(180)

MS = DEADLINE * 1000


def me(page) -> dict:
    return page.evaluate("({player: window.solrace.app.me.player, name: window.solrace.app.me.name})")


def stored(page, key: str) -> str | None:
    return page.evaluate(f"localStorage.getItem('solrace.{key}')")


def new_player_after(page, old_pid: str) -> None:
    page.wait_for_function(f"window.solrace.app.me && window.solrace.app.me.player !== {old_pid!r}")
    page.wait_for_selector(".net.online")


def test_logged_out_everywhere_elsewhere_says_so(new_page):
    first = new_page("carol")
    pid = claim(first, "carol", "carol's secret")
    first.goto(first.url.split("#")[0] + "#/")
    second = new_page("someone")
    assert login(second, "carol", "carol's secret") == pid

    second.click("#logout-all-btn")
    second.wait_for_selector("#claim-form")

    # The first browser was closed with "session revoked: log in again": it says so.
    note = first.locator("#session-note")
    expect(note).to_be_visible(timeout=MS)
    expect(note).to_contain_text("You were logged out — log in again", timeout=MS)
    assert note.get_attribute("data-kind") == "logged-out"
    new_player_after(first, pid)
    # ... and its new guest is not "carol", nor shown as logged in.
    assert me(first)["name"] != "carol"
    expect(first.locator("#name")).not_to_have_value("carol", timeout=MS)
    expect(first.locator("#name")).to_have_value(me(first)["name"], timeout=MS)
    assert stored(first, "name") != "carol"
    assert "." not in (stored(first, "token") or "")
    expect(first.locator("#account-mark")).to_be_hidden(timeout=MS)
    shot(first, "returning-logged-out-everywhere")

    # Its Log in link leads to the Log in form; logging in again ends the note.
    first.click("#relogin-link")
    first.wait_for_selector("#login-form")
    assert login(first, "carol", "carol's secret") == pid
    expect(note).to_be_hidden(timeout=MS)
    expect(first.locator("#account-mark")).to_be_visible(timeout=MS)


def test_expired_guest_session_is_told_once(new_page, web_server):
    page = new_page("dora")
    old = me(page)
    token = stored(page, "token")
    assert token and "." not in token

    # The server forgets the session, as SESSION_TTL does after a week without play.
    url = wait_until(lambda: private_redis_url(web_server.log_path.read_text()), what="the server's Redis")
    r = redis.Redis.from_url(url)
    try:
        assert r.delete(session_key(token)) == 1
    finally:
        r.close()

    page.reload()
    note = page.locator("#session-note")
    expect(note).to_be_visible(timeout=MS)
    expect(note).to_contain_text("Your guest session expired after a week without play", timeout=MS)
    expect(note).to_contain_text("Claim an account to keep your history next time", timeout=MS)
    assert note.get_attribute("data-kind") == "guest-expired"
    new_player_after(page, old["player"])
    assert me(page)["name"] == "dora"  # a guest keeps its name
    shot(page, "returning-guest-expired")

    page.click("#session-note-close")
    expect(note).to_be_hidden(timeout=MS)
    # Once: a reconnect with the new guest's token does not bring it back.
    page.evaluate("window.solrace.conn.drop()")
    page.wait_for_selector(".conn-banner.back")
    expect(page.locator(".net.online")).to_be_visible(timeout=MS)
    assert me(page)["player"] != old["player"]
    expect(note).to_be_hidden()


def test_logout_gives_the_guest_its_own_name(new_page):
    page = new_page("erin")
    pid = claim(page, "erin", "erin's secret")
    page.click("#logout-btn")
    page.wait_for_selector("#claim-form")
    new_player_after(page, pid)
    name = me(page)["name"]
    assert name != "erin" and name.startswith("player-")
    expect(page.locator("#name")).to_have_value(name, timeout=MS)
    assert stored(page, "name") == name
    # Logging out on purpose is no surprise: no note.
    assert page.locator("#session-note:visible").count() == 0


def test_header_shows_the_logged_in_state(new_page):
    page = new_page("fay")
    name_box = page.locator("#name")
    expect(page.locator("#account-mark")).to_be_hidden(timeout=MS)
    expect(page.locator("label.name-label")).to_have_text("Name", timeout=MS)
    expect(name_box).to_be_editable(timeout=MS)

    claim(page, "fay", "fay's secret")
    expect(page.locator("#account-mark")).to_be_visible(timeout=MS)
    expect(page.locator("label.name-label")).to_have_text("Logged in as", timeout=MS)
    expect(name_box).to_have_value("fay", timeout=MS)
    expect(name_box).not_to_be_editable(timeout=MS)
    assert "username" in (name_box.get_attribute("title") or "")
    shot(page, "returning-header-logged-in")
