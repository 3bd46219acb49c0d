"""A race made on the server whose reply reaches the page after the page's timeout (net.js): the
page must not say the race was not created, and the player gets to it. The test holds the
`create` reply in a route of the page's WebSocket until the page has given up waiting (a short
timeout, `SOLRACE_REQUEST_TIMEOUT_MS`, for the test's speed), then lets it through: still on the
lobby, the race page opens; gone to another page meanwhile, a note offers the race with a link."""

from __future__ import annotations

import re

import msgpack
import pytest
from playwright.sync_api import expect
from waiting import wait_until

from .test_bots_rematch import bot_row
from .test_browser import race_id, wait_board

pytestmark = pytest.mark.timeout(180)

TIMED_OUT = "The server did not answer in time: the race may still appear."


class HeldReplies:
    """The page's WebSocket routed through the test: replies to the page's requests of type `t`
    are kept back (in `frames`) until `release()`; everything else passes."""

    def __init__(self, page, t: str) -> None:
        self.t = t
        self.rids: set[int] = set()
        self.frames: list[bytes] = []
        self.ws = None
        page.route_web_socket(re.compile(r"/ws$"), self.route)
        page.reload()
        page.wait_for_selector(".net.online")

    def route(self, ws) -> None:
        server = ws.connect_to_server()
        self.ws = ws

        def to_server(frame) -> None:
            if isinstance(frame, bytes):
                msg = msgpack.unpackb(frame, strict_map_key=False)
                if msg.get("t") == self.t and "rid" in msg:
                    self.rids.add(msg["rid"])
            server.send(frame)

        def to_page(frame) -> None:
            if (
                isinstance(frame, bytes)
                and msgpack.unpackb(frame, strict_map_key=False).get("rid") in self.rids
            ):
                self.frames.append(frame)
                return
            ws.send(frame)

        ws.on_message(to_server)
        server.on_message(to_page)

    def release(self) -> None:
        assert self.ws is not None
        for frame in self.frames:
            self.ws.send(frame)
        self.frames.clear()


TILE = '.tile[data-game="racing-aces"]'


def too_late(page, *clicks: str) -> HeldReplies:
    """`clicks` on the lobby, ending with one that sends a `create` whose reply is held past the
    page's timeout: the timeout's note is in, the reply still held. The page's timeout is back
    to its default on return."""
    held = HeldReplies(page, "create")
    page.evaluate("globalThis.SOLRACE_REQUEST_TIMEOUT_MS = 1000")
    for selector in clicks:
        page.click(selector)
    expect(page.locator(".toast", has_text="did not answer in time").first).to_be_visible()
    page.evaluate("delete globalThis.SOLRACE_REQUEST_TIMEOUT_MS")
    # (the route's handlers run while the test talks to the browser: each try asks it something)
    wait_until(lambda: held.frames or page.evaluate("false"), what="the create reply, held")
    return held


def practise_too_late(page) -> HeldReplies:
    """Practice on a tile (a private race of one: a `create`), its reply too late."""
    return too_late(page, f'{TILE} [data-act="practice"]')


def toasts(page) -> list[str]:
    return page.evaluate("window.__toasts")


def test_a_late_create_opens_the_race_and_never_said_it_failed(new_page):
    page = new_page("Late Lark")
    held = practise_too_late(page)
    assert TIMED_OUT in toasts(page)
    held.release()
    rid = race_id(page)
    expect(page.locator("#lobby-panel h2")).to_have_text("A race of your own")
    assert page.evaluate("window.solrace.app.race.race") == rid
    assert not [t for t in toasts(page) if "Could not create" in t], toasts(page)


def test_a_late_create_after_leaving_the_page_offers_the_race(new_page):
    page = new_page("Late Wren")
    held = practise_too_late(page)
    page.click('[data-nav="howto"]')
    page.wait_for_url(re.compile(r"#howto"))
    held.release()
    note = page.locator(".toast", has_text="your race is there after all")
    expect(note).to_be_visible()
    assert re.search(r"#howto", page.url), "the late race took the player off the page they went to"
    note.get_by_role("link", name="Open the race").click()
    race_id(page)
    expect(page.locator("#lobby-panel h2")).to_have_text("A race of your own")
    assert not [t for t in toasts(page) if "Could not create" in t], toasts(page)


def test_a_late_create_of_a_race_with_a_bot_goes_on_to_the_race(new_page):
    """The bot race is three requests (create, bot, ready): a late create still brings the bot,
    the player ready, and the race page with its board."""
    page = new_page("Late Finch")
    held = too_late(page, f'{TILE} [data-act="bot"]', f'{TILE} [data-act="bot-go"]')
    assert TIMED_OUT in toasts(page)
    held.release()
    race_id(page)
    bot_row(page)
    wait_board(page)
    assert not [t for t in toasts(page) if "Could not start" in t], toasts(page)
