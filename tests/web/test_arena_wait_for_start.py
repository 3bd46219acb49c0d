"""Joined to an arena that has not started, the page says the first race is paired at its start.
It said "Waiting for a pairing…" for the whole wait (an hourly arena's list offers one starting
in up to an hour), as if the pairing were late; once the arena starts, with nobody to pair, it
says so again."""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import expect

from protocol import messages as m

from .conftest import Server

pytestmark = pytest.mark.timeout(120)

START_IN_MS = 8000


@pytest.fixture(scope="module")
def web_server(tmp_path_factory):
    """This module's server: clients may create arenas, none is scheduled."""
    srv = Server(
        tmp_path_factory.mktemp("web-arena-wait"), arena_create=1, arena_schedule="off", arena_tick_ms=200
    )
    yield srv
    srv.stop()


def test_joined_before_the_start_the_page_says_when_pairing_comes(new_page, make_bot):
    host = make_bot("host")
    starts = int(time.time() * 1000) + START_IN_MS
    host.call(
        lambda c: c.request(
            m.ArenaCreate(
                arena="later-arena", game="fours-up", starts=starts, duration_ms=120_000, time_limit_s=60
            )
        )
    )
    page = new_page("early", width=390, height=844)
    page.goto(page.url.split("#")[0] + "#arena=later-arena")
    expect(page.locator("#arena-left")).to_contain_text("starts in")
    page.click("#arena-join")
    waiting = page.locator("#arena-waiting")
    expect(waiting).to_have_text("You are in: your first race is paired when the arena starts.")
    # the start comes with nobody else joined: now a pairing is awaited
    expect(page.locator("#arena-left")).to_contain_text("left", timeout=START_IN_MS + 20_000)
    expect(waiting).to_have_text("Waiting for a pairing…")
