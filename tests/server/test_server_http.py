"""The HTTP side of the WebSocket port (server/net/http.py, docs/operations.md §10).

Raw requests over a socket to a real server on 127.0.0.1, so that the tests choose the method,
the path and the headers exactly: long paths (404 or 414, never a 500 and a logged traceback),
the security headers on every response, GET and HEAD only (405 with `Allow` otherwise, HEAD
without a body), and the Upgrade header read as a list of tokens, not searched for a substring.
"""

from __future__ import annotations

import asyncio
import base64
import logging
import os
from dataclasses import dataclass
from pathlib import Path

import pytest
from websockets.datastructures import Headers

from server.net.http import MAX_PATH, origin_allowed

ROOT = Path(__file__).resolve().parents[2]
INDEX = ROOT / "client" / "web" / "static" / "index.html"


@dataclass
class Reply:
    status: int
    headers: dict[str, list[str]]
    body: bytes

    def header(self, name: str) -> str:
        values = self.headers.get(name.lower(), [])
        assert len(values) == 1, f"{name}: {values}"
        return values[0]


async def request(app, method: str, path: str, headers: dict[str, str] | None = None) -> Reply:
    """One request on a fresh connection; the server answers and closes (websockets sends EOF)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", app.port)
    hdrs = {"Host": f"127.0.0.1:{app.port}", **(headers or {})}
    head = f"{method} {path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in hdrs.items()) + "\r\n"
    writer.write(head.encode())
    await writer.drain()
    try:
        top = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
        # After a 101 the socket is a WebSocket: the headers are the whole reply.
        body = b"" if top.startswith(b"HTTP/1.1 101 ") else await asyncio.wait_for(reader.read(-1), 10)
    finally:
        writer.close()
    top = top[:-4]
    lines = top.decode("iso-8859-1").split("\r\n")
    status = int(lines[0].split()[1])
    parsed: dict[str, list[str]] = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        parsed.setdefault(name.strip().lower(), []).append(value.strip())
    return Reply(status, parsed, body)


def ws_key() -> str:
    return base64.b64encode(os.urandom(16)).decode()


def upgrade_headers(upgrade: str) -> dict[str, str]:
    return {
        "Upgrade": upgrade,
        "Connection": "Upgrade",
        "Sec-WebSocket-Key": ws_key(),
        "Sec-WebSocket-Version": "13",
    }


def assert_secure(reply: Reply, port: int) -> None:
    assert reply.header("X-Content-Type-Options") == "nosniff"
    assert reply.header("X-Frame-Options") == "DENY"
    assert reply.header("Referrer-Policy") == "no-referrer"
    csp = {d.split()[0]: d.split()[1:] for d in reply.header("Content-Security-Policy").split("; ")}
    assert csp["default-src"] == ["'none'"]
    assert csp["script-src"] == ["'self'"]
    assert csp["frame-ancestors"] == ["'none'"]
    assert csp["connect-src"] == ["'self'", f"ws://127.0.0.1:{port}", f"wss://127.0.0.1:{port}"]


async def test_long_paths_are_404_or_414_without_a_traceback(
    server, caplog: pytest.LogCaptureFixture
) -> None:
    """256+ characters in one path component made Path.is_file() raise ENAMETOOLONG: a 500 and a
    traceback logged at ERROR for each request, a cheap way to flood the logs."""
    with caplog.at_level(logging.INFO):
        for n in (256, 300, 1000):
            reply = await request(server, "GET", "/" + "a" * n)
            assert reply.status == 404, (n, reply)
            assert_secure(reply, server.port)
        reply = await request(server, "GET", "/js/" + "b" * 300 + ".js")
        assert reply.status == 404
        reply = await request(server, "GET", "/" + "a" * (MAX_PATH + 1))
        assert reply.status == 414
        assert_secure(reply, server.port)
        # The query string does not count, and the cap is on the path, not on short ones.
        reply = await request(server, "GET", "/?" + "q" * 2000)
        assert reply.status == 200
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not errors, [r.getMessage() for r in errors]


async def test_every_response_has_the_security_headers(server) -> None:
    for path, status in (
        ("/", 200),
        ("/index.html", 200),
        ("/js/app.js", 200),
        ("/css/app.css", 200),
        ("/games.json", 200),
        ("/healthz", 200),
        ("/metrics", 200),
        ("/no/such/file.js", 404),
        ("/../../pyproject.toml", 404),
    ):
        reply = await request(server, "GET", path)
        assert reply.status == status, path
        assert_secure(reply, server.port)
    reply = await request(server, "POST", "/")
    assert reply.status == 405
    assert_secure(reply, server.port)


async def test_csp_names_no_odd_host(server) -> None:
    """The Host header goes into connect-src only when it is a plain host[:port]."""
    reply = await request(server, "GET", "/", {"Host": "evil; script-src *"})
    csp = reply.header("Content-Security-Policy")
    assert "evil" not in csp and "connect-src 'self';" in csp


async def test_only_get_and_head(server) -> None:
    for method in ("POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "BREW"):
        reply = await request(server, method, "/healthz")
        assert reply.status == 405, method
        assert reply.header("Allow") == "GET, HEAD"
    # A non-GET upgrade is no WebSocket handshake either.
    reply = await request(server, "POST", "/ws", upgrade_headers("websocket"))
    assert reply.status == 405 and reply.header("Allow") == "GET, HEAD"


async def test_head_is_get_without_the_body(server) -> None:
    for path in ("/", "/games.json", "/healthz", "/no/such/file"):
        get = await request(server, "GET", path)
        head = await request(server, "HEAD", path)
        assert head.status == get.status, path
        assert head.body == b"", path
        assert head.header("Content-Length") == str(len(get.body)), path
        assert head.header("Content-Type") == get.header("Content-Type"), path
        assert_secure(head, server.port)
    if INDEX.exists():
        assert (await request(server, "GET", "/")).body == INDEX.read_bytes()


async def test_upgrade_is_a_token_not_a_substring(server) -> None:
    # Not a WebSocket upgrade: served as plain HTTP (the page), not handed to the handshake (426).
    for upgrade in ("notwebsocket", "websockets", "h2c, xwebsocket"):
        reply = await request(server, "GET", "/", upgrade_headers(upgrade))
        assert reply.status == 200, upgrade
        assert_secure(reply, server.port)
    # The websocket token, in any case: the handshake (101).
    for upgrade in ("websocket", "WebSocket"):
        reply = await request(server, "GET", "/ws", upgrade_headers(upgrade))
        assert reply.status == 101, upgrade
        assert reply.header("Upgrade").lower() == "websocket"
    # Among other tokens it is still an upgrade, handed to the handshake, which wants it alone (426).
    reply = await request(server, "GET", "/ws", upgrade_headers("h2c, websocket"))
    assert reply.status == 426


async def test_a_websocket_from_another_sites_page_is_refused(make_server) -> None:
    """Any page a player visits could open sockets here from their browser and spend their
    address's allowances (a security audit): an upgrade whose Origin is neither the server's own
    host nor one of --allowed-origins gets 403; one with no Origin (not a browser) is let in."""
    server = await make_server(allowed_origins="https://Play.Example.com/, http://10.0.0.7:8080")
    own = f"http://127.0.0.1:{server.port}"
    cases = [
        ({}, 101),  # the terminal client, bots, scripts
        ({"Origin": own}, 101),  # the server's own page
        ({"Origin": "https://play.example.com"}, 101),  # allowed by the setting
        ({"Origin": "http://10.0.0.7:8080"}, 101),
        ({"Origin": "https://evil.example"}, 403),
        ({"Origin": f"https://127.0.0.1:{server.port}.evil.example"}, 403),
        ({"Origin": "null"}, 403),  # a sandboxed frame or a file: page
        ({"Origin": "http://10.0.0.7:8081"}, 403),
    ]
    for extra, status in cases:
        reply = await request(server, "GET", "/ws", {**upgrade_headers("websocket"), **extra})
        assert reply.status == status, extra
        if status == 403:
            assert_secure(reply, server.port)
    assert server.service.metrics.refused_origin == 4
    metrics = await request(server, "GET", "/metrics")
    assert b"solrace_ws_origin_refused_total 4" in metrics.body


def test_an_origin_and_a_host_name_the_same_server_with_or_without_the_default_port() -> None:
    def allowed(origin: str, host: str) -> bool:
        return origin_allowed(Headers([("Origin", origin), ("Host", host)]), frozenset())

    assert allowed("https://Example.COM", "example.com:443")
    assert allowed("http://example.com:80", "example.com")
    assert allowed("https://[::1]:8765", "[::1]:8765")
    assert not allowed("https://example.com", "example.com:8443")
    assert not allowed("ftp://example.com", "example.com")
    assert not origin_allowed(
        Headers([("Origin", "https://a.example"), ("Origin", "https://a.example")]), frozenset()
    )
