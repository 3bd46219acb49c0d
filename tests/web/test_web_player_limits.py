"""What the page says when the server refuses it for the player's own doing, on a server whose
limits are reached quickly: two open connections per player, names of at most 12 characters.

- A tab over the player's connection limit is closed with 1008 "too many connections for this
  player". The page said "Cannot reach the server — retrying…" and connected again every few
  seconds, refused each time; it now says to close a tab, waits long, and has a Retry button.
- A name the server refuses as malformed (invisible or control characters, too long) went back
  to the old one without a word; the server's reason is now said. The Name box takes the
  server's MAX_NAME (welcome.limits) as its longest, not index.html's 24.
Screenshots: test-artifacts/web/player-limits-*.png."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect
from waiting import wait_until

from .conftest import TOASTS_KEPT, Server, shot

pytestmark = pytest.mark.timeout(180)

MAX_NAME = 12


@pytest.fixture(scope="module")
def web_server(tmp_path_factory):
    srv = Server(tmp_path_factory.mktemp("web-player-limits"), max_conn_per_player=2, max_name=MAX_NAME)
    yield srv
    srv.stop()


def test_a_tab_over_the_players_limit_says_to_close_one(new_page, web_server):
    first = new_page("tabby")
    ctx = first.context
    second = ctx.new_page()  # the same player (one localStorage): its second connection
    second.goto(web_server.http + "/#watch")
    second.wait_for_selector(".net.online")
    third = ctx.new_page()
    sockets: list[str] = []
    third.on("websocket", lambda ws: sockets.append(ws.url))
    third.goto(web_server.http + "/#watch")
    banner = third.locator("#conn-banner")
    expect(banner).to_contain_text("Too many tabs or windows of this player are open: close one")
    expect(banner).to_contain_text("Trying again in 30 s.")
    expect(third.locator("#net")).to_have_text("offline")
    shot(third, "player-limits-extra-tab")
    # no quick reconnection loop: the refused connection is the only one so far
    assert third.evaluate("window.solrace.conn.status") == "offline"
    assert len(sockets) == 1, sockets
    # once another tab is closed, Retry gets in (the server may take a moment to count the close:
    # refused again, the banner says so again and Retry is pressed again)
    second.close()

    def retried_online() -> bool:
        status = third.evaluate("window.solrace.conn.status")
        if status == "online":
            return True
        if status == "offline" and third.locator("#conn-retry").is_visible():
            third.click("#conn-retry")
        return False

    wait_until(retried_online, what="the third tab online after Retry")
    expect(third.locator("#net")).to_have_text("online")
    expect(banner).to_contain_text("Reconnected.")


def test_a_malformed_name_is_refused_with_the_servers_reason(new_page):
    page = new_page("namer")
    box = page.locator("#name")
    for bad in ["\u200b\u200b", "a\u0007b"]:
        page.evaluate("globalThis.__toasts.length = 0")
        box.fill(bad)
        box.press("Enter")
        page.wait_for_function("globalThis.__toasts.length > 0")
        toasts = page.evaluate("globalThis.__toasts")
        assert toasts == [
            "The server refused that name: must be printable, without leading or trailing spaces."
        ], (
            bad,
            toasts,
        )
        expect(box).to_have_value("namer")  # the name the player had
        expect(page.locator(".net")).to_have_class("net online")
    shot(page, "player-limits-bad-name")


def test_the_name_box_takes_the_servers_longest_name(new_page):
    page = new_page("longest")
    expect(page.locator("#name")).to_have_attribute("maxlength", str(MAX_NAME))
    page.locator("#name").fill("")
    page.locator("#name").press_sequentially("a" * 20)
    expect(page.locator("#name")).to_have_value("a" * MAX_NAME)


def test_a_stored_name_too_long_for_the_server_is_refused_with_its_reason(browser, web_server):
    """A name kept from another server (or before the operator narrowed MAX_NAME): the server's
    reason is said, and the player gets the server's default name."""
    ctx = browser.new_context()
    try:
        page = ctx.new_page()
        page.add_init_script(f"localStorage.setItem('solrace.name', {'b' * 20!r})")
        page.add_init_script(TOASTS_KEPT)
        page.goto(web_server.http + "/")
        page.wait_for_selector(".net.online")
        page.wait_for_function("globalThis.__toasts.length > 0")
        assert page.evaluate("globalThis.__toasts") == [
            f"The server refused that name: at most {MAX_NAME} characters."
        ]
        expect(page.locator("#name")).to_have_value(page.evaluate("window.solrace.app.me.name"))
    finally:
        ctx.close()
