"""A new browser beyond the server's NEW_SESSIONS_PER_MIN for its address: its `hello` is answered
`rate-limited` with `retry_ms` (docs/protocol.md §2). The page ignored the error and sat on
"connecting…" until the server's HELLO_TIMEOUT closed it, then said "Cannot reach the server"
and asked again at once. It now says why, drops the connection itself, and says hello again
once `retry_ms` is over, when it gets in. (Loopback is not exempt on this server.)
The test shortens the address's window in Redis to a few seconds (the server reads what is
left of it for `retry_ms`), so it waits seconds, not the minute.
Screenshot: test-artifacts/web/new-sessions-limited.png."""

from __future__ import annotations

import re

import pytest
import redis
from playwright.sync_api import expect
from private_redis import private_redis_url
from waiting import wait_until

from server.storage.sessions import new_session_key

from .conftest import Server, shot

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def web_server(tmp_path_factory):
    srv = Server(tmp_path_factory.mktemp("web-new-sessions"), limit_exempt="", new_sessions_per_min=1)
    yield srv
    srv.stop()


def test_a_new_session_refused_for_now_says_so_and_comes_back(new_page, browser, web_server):
    new_page("first")  # the address's one new session of the minute
    # ... of a window cut to 4 s: what the page is told to wait is what is left of it
    url = wait_until(lambda: private_redis_url(web_server.log_path.read_text()), what="the server's Redis")
    with redis.Redis.from_url(url) as r:
        assert r.pexpire(new_session_key("127.0.0.1"), 4000)
    ctx = browser.new_context()
    try:
        page = ctx.new_page()
        sockets: list[str] = []
        page.on("websocket", lambda ws: sockets.append(ws.url))
        page.goto(web_server.http + "/")
        banner = page.locator("#conn-banner")
        expect(banner).to_contain_text("Too many new players from your network right now.", timeout=5000)
        expect(page.locator("#net")).to_have_text("offline")
        wait = re.search(r"Trying again in (\d+) s\.", banner.inner_text())
        assert wait and 1 <= int(wait.group(1)) <= 4, banner.inner_text()
        shot(page, "new-sessions-limited")
        # the page asks again when the server said it may: the next minute's session is its own
        page.wait_for_selector(".net.online", timeout=(int(wait.group(1)) + 30) * 1000)
        expect(banner).to_contain_text("Reconnected.")
        assert len(sockets) == 2, sockets
        # and the server never had to close it for want of a hello
        assert "no hello in time" not in web_server.log_path.read_text()
    finally:
        ctx.close()
