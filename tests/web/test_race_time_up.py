"""A click on the race board as the race clock runs out: the move reaches the server after the
deadline and is refused (race-not-running), while the page has not yet heard of the end. The
player's time is simply up: the page says so calmly, with no error toast."""

from __future__ import annotations

import re

import msgpack
import pytest

from .test_browser import wait_board

pytestmark = pytest.mark.timeout(180)


def hold_events(page) -> dict:
    """Route the page's WebSocket through the test: while `held["on"]`, the server's events
    (frames without a `rid`: `progress`, `end`…) are dropped, its replies still pass. Returns
    `held`; the page reconnects through the route."""
    held = {"on": False}

    def route(ws):
        server = ws.connect_to_server()
        ws.on_message(server.send)

        def to_page(frame):
            if (
                held["on"]
                and isinstance(frame, bytes)
                and "rid" not in msgpack.unpackb(frame, strict_map_key=False)
            ):
                return
            ws.send(frame)

        server.on_message(to_page)

    page.route_web_socket(re.compile(r"/ws$"), route)
    page.reload()
    page.wait_for_selector(".net.online")
    return held


def test_a_click_as_the_clock_runs_out_says_time_is_up(new_page):
    page = new_page("last-second")
    held = hold_events(page)
    page.evaluate("window.solrace.createRace('racing-aces', 1, 30)")  # the shortest clock
    page.click("#ready-btn")
    wait_board(page)
    page.wait_for_function("window.solrace.app.you.legal.includes('draw')")
    # the end (and our own time-out) is late to the page: its board still takes a click
    held["on"] = True
    page.wait_for_function(
        "window.solrace.conn.now() > window.solrace.app.race.deadline + 500", timeout=60_000
    )
    n = page.evaluate("window.solrace.app.you.n")
    asked = page.evaluate("window.solrace.conn.nextRid")
    page.click('#board .pile[data-pile="s"]')
    # the move was sent, and its refusal is in
    page.wait_for_function(f"window.solrace.conn.nextRid > {asked} && window.solrace.conn.pending.size === 0")
    page.locator(".toast").first.wait_for()
    assert page.locator(".toast").all_inner_texts() == ["Time is up."]
    assert page.locator(".toast.error").count() == 0
    assert page.evaluate("window.solrace.app.you.n") == n
