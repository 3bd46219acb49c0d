"""The edge of the network side, against real servers on 127.0.0.1 (raw sockets, so that the
tests choose every byte): sockets counted per address from the moment they are accepted, the
open-files limit raised at startup, /metrics for private addresses only, the security headers
on the responses websockets makes itself, and 1007 for a text frame that is not UTF-8
(server/net/admission.py `SocketGate`, server/net/wsconn.py, server/net/http.py, server/app.py;
docs/operations.md §3, §4, §10).
"""

from __future__ import annotations

import asyncio
import base64
import logging
import os
import resource
import subprocess
import sys
from pathlib import Path

import msgpack
import pytest
from waiting import DEADLINE, until

ROOT = Path(__file__).resolve().parents[2]
HAPROXY = ROOT / "deploy" / "haproxy.cfg"


def ws_key() -> str:
    return base64.b64encode(os.urandom(16)).decode()


def head(method: str, path: str, headers: dict[str, str]) -> bytes:
    return (
        f"{method} {path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers.items()) + "\r\n"
    ).encode()


def upgrade(port: int, **extra: str) -> dict[str, str]:
    return {
        "Host": f"127.0.0.1:{port}",
        "Upgrade": "websocket",
        "Connection": "Upgrade",
        "Sec-WebSocket-Key": ws_key(),
        "Sec-WebSocket-Version": "13",
        **extra,
    }


async def open_socket(port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    return await asyncio.open_connection("127.0.0.1", port)


async def read_response(reader: asyncio.StreamReader) -> tuple[int, dict[str, list[str]], bytes]:
    """Status, headers (lower-case names) and the rest of what the server sent until it closed
    (after a 101: nothing more is read)."""
    top = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), DEADLINE)
    rest = b"" if top.startswith(b"HTTP/1.1 101 ") else await asyncio.wait_for(reader.read(-1), DEADLINE)
    lines = top[:-4].decode("iso-8859-1").split("\r\n")
    headers: dict[str, list[str]] = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers.setdefault(name.strip().lower(), []).append(value.strip())
    return int(lines[0].split()[1]), headers, rest


async def exchange(port: int, data: bytes) -> tuple[int, dict[str, list[str]], bytes]:
    reader, writer = await open_socket(port)
    try:
        writer.write(data)
        await writer.drain()
        return await read_response(reader)
    finally:
        writer.close()


async def refused_unanswered(port: int) -> bool:
    """A new connection that asks for /healthz: True if it is closed without a byte of answer
    (refused at accept), False if it is answered."""
    reader, writer = await open_socket(port)
    try:
        try:
            writer.write(head("GET", "/healthz", {"Host": "x"}))
            await writer.drain()
            got = await asyncio.wait_for(reader.read(-1), DEADLINE)
        except (ConnectionResetError, BrokenPipeError):
            return True
        return got == b""
    finally:
        writer.close()


# --- 1. sockets per address, from accept -------------------------------------------------------


async def test_sockets_that_never_finish_the_handshake_are_counted_per_address(
    make_server, caplog: pytest.LogCaptureFixture
) -> None:
    """Each was held until the open timeout (10 s) whatever their number: ~1,100 of them from
    one address took every file descriptor of a process with `ulimit -n 1024`."""
    caplog.set_level(logging.WARNING)
    app = await make_server(max_conn_per_addr=2, max_pending_per_addr=3)
    gate = app.gateway.gate
    idle = [await open_socket(app.port) for _ in range(5)]  # MAX_CONN_PER_ADDR + MAX_PENDING_PER_ADDR
    await until(lambda: gate.by_addr.get("127.0.0.1") == 5, what="the five sockets accepted")
    # The sixth, a plain HTTP request, is closed at accept: no answer.
    assert await refused_unanswered(app.port)
    assert gate.by_addr["127.0.0.1"] == 5
    # One goes away: its place is free again, for HTTP as for a WebSocket.
    idle.pop()[1].close()
    await until(lambda: gate.by_addr.get("127.0.0.1") == 4, what="a closed socket released")
    status, _, body = await exchange(app.port, head("GET", "/healthz", {"Host": "x"}))
    assert (status, body) == (200, b"ok\n")
    for _, writer in idle:
        writer.close()
    await until(lambda: "127.0.0.1" not in gate.by_addr and gate.count == 0, what="all released")
    # A refused socket is no incident (solrace.app may warn of a low open-files limit: not this).
    problems = [
        r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING and r.name != "solrace.app"
    ]
    assert not problems, problems


async def test_open_websockets_past_the_limit_still_get_their_1008(make_server) -> None:
    """MAX_PENDING_PER_ADDR is room above MAX_CONN_PER_ADDR: the WebSocket over the limit is
    still answered with its close code, not dropped at accept."""
    from wsclient import Raw, player

    app = await make_server(max_conn_per_addr=1, max_pending_per_addr=1)
    a = await player(app.ws_url, "a")
    extra = await Raw.open(app.ws_url)
    await asyncio.wait_for(extra.reader, DEADLINE)
    assert extra.closed == 1008
    await a.close()


async def test_trusted_proxies_are_not_counted_per_address(make_server) -> None:
    """Behind a proxy every connection comes from its address: counted per address, one client
    would lock everyone out. The proxy's connections count only towards MAX_CONNECTIONS."""
    app = await make_server(max_conn_per_addr=1, max_pending_per_addr=1, trusted_proxies="127.0.0.1")
    gate = app.gateway.gate
    idle = [await open_socket(app.port) for _ in range(4)]
    await until(lambda: gate.count == 4, what="the four sockets accepted")
    assert gate.by_addr == {}
    status, _, _ = await exchange(app.port, head("GET", "/healthz", {"Host": "x"}))
    assert status == 200
    for _, writer in idle:
        writer.close()


async def test_max_connections_bounds_all_sockets(make_server) -> None:
    app = await make_server(max_connections=3, trusted_proxies="127.0.0.1")
    gate = app.gateway.gate
    assert gate.total == 3
    idle = [await open_socket(app.port) for _ in range(3)]
    await until(lambda: gate.count == 3, what="three sockets accepted")
    assert await refused_unanswered(app.port)
    for _, writer in idle:
        writer.close()
    await until(lambda: gate.count == 0, what="all released")
    status, _, _ = await exchange(app.port, head("GET", "/healthz", {"Host": "x"}))
    assert status == 200


# --- 2. the open-files limit -------------------------------------------------------------------


# Sets the limit, then becomes `solrace serve` (the same PID): no preexec_fn, which is unsafe
# in a process with threads.
WITH_NOFILE = (
    "import os, resource, sys; "
    "resource.setrlimit(resource.RLIMIT_NOFILE, (int(sys.argv[1]), int(sys.argv[2]))); "
    "os.execv(sys.executable, [sys.executable, '-m', 'client.cli', 'serve', *sys.argv[3:]])"
)


def _serve_with_nofile(soft: int, hard: int, tmp_path: Path, redis_url: str) -> tuple[int, str]:
    """Start `solrace serve` with RLIMIT_NOFILE (soft, hard); the soft limit it then runs with
    (/proc/PID/limits) and what it logged."""
    log = tmp_path / "serve.log"
    flags = ["--host", "127.0.0.1", "--port", "0", "--redis", redis_url, "--bot-workers", "0"]
    with open(log, "w") as err:
        proc = subprocess.Popen(
            [sys.executable, "-c", WITH_NOFILE, str(soft), str(hard), *flags, "--certify-workers", "0"],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=err,
            text=True,
        )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()  # "solrace listening on ...": started
        assert "ws://" in line, line + log.read_text()
        rows = Path(f"/proc/{proc.pid}/limits").read_text().splitlines()
        row = next(r for r in rows if r.startswith("Max open files"))
        return int(row.split()[3]), log.read_text()
    finally:
        proc.terminate()
        proc.wait(DEADLINE)


def test_the_open_files_limit_is_raised_to_the_hard_limit(tmp_path: Path, clean_redis: str) -> None:
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard < 2048:
        pytest.skip(f"needs a finite hard limit of open files of 2048 or more, not {hard}")
    soft, text = _serve_with_nofile(512, hard, tmp_path, clean_redis)
    assert soft == hard
    assert f"open-files limit {hard}: at most" in text, text


def test_a_low_hard_limit_is_warned_about(tmp_path: Path, clean_redis: str) -> None:
    soft, text = _serve_with_nofile(1024, 1024, tmp_path, clean_redis)
    assert soft == 1024
    assert "WARNING" in text and "the open-files limit 1024 leaves room for" in text, text


# --- 3. /metrics -------------------------------------------------------------------------------


async def test_metrics_answer_private_addresses_only(make_server) -> None:
    app = await make_server(trusted_proxies="127.0.0.1")
    port = app.port

    async def metrics(forwarded: str | None, method: str = "GET") -> int:
        headers = {"Host": "x"} if forwarded is None else {"Host": "x", "X-Forwarded-For": forwarded}
        status, _, body = await exchange(port, head(method, "/metrics", headers))
        assert status != 200 or method == "HEAD" or b"solrace_connections" in body
        return status

    assert await metrics(None) == 200  # loopback itself
    assert await metrics("10.1.2.3") == 200  # a private address behind the trusted proxy
    assert await metrics("fd00::7") == 200
    assert await metrics("203.0.113.9") == 404  # a public client behind it
    assert await metrics("203.0.113.9", "HEAD") == 404
    assert await metrics("10.0.0.1, 203.0.113.9") == 404  # the proxy's hop is the last one
    # The other endpoints answer everyone.
    status, _, _ = await exchange(
        port, head("GET", "/healthz", {"Host": "x", "X-Forwarded-For": "203.0.113.9"})
    )
    assert status == 200


async def test_metrics_from_names_who_may_read_them(make_server) -> None:
    app = await make_server(metrics_from="10.0.0.0/8")
    status, headers, body = await exchange(app.port, head("GET", "/metrics", {"Host": "x"}))
    assert (status, body) == (404, b"not found\n")
    assert headers["x-content-type-options"] == ["nosniff"]
    # Without a trusted proxy, X-Forwarded-For is anyone's word: the peer's address decides.
    status, _, _ = await exchange(
        app.port, head("GET", "/metrics", {"Host": "x", "X-Forwarded-For": "10.0.0.1"})
    )
    assert status == 404


def test_the_shipped_haproxy_denies_metrics() -> None:
    frontend = HAPROXY.read_text().split("frontend ", 1)[1].split("\nbackend ", 1)[0]
    rules = [line.split() for line in frontend.splitlines() if line.strip().startswith("http-request deny")]
    assert any("/metrics" in rule for rule in rules), frontend


# --- 4. security headers on websockets' own responses ------------------------------------------


def assert_secure(headers: dict[str, list[str]]) -> None:
    assert headers.get("x-content-type-options") == ["nosniff"], headers
    assert headers.get("x-frame-options") == ["DENY"], headers
    assert headers.get("referrer-policy") == ["no-referrer"], headers
    [csp] = headers["content-security-policy"]
    directives = {d.split()[0]: d.split()[1:] for d in csp.split("; ")}
    assert directives["default-src"] == ["'none'"] and directives["frame-ancestors"] == ["'none'"]


async def test_the_responses_websockets_makes_carry_the_security_headers(make_server) -> None:
    app = await make_server()
    port = app.port
    no_key = upgrade(port)
    del no_key["Sec-WebSocket-Key"]
    no_connection = upgrade(port)
    del no_connection["Connection"]
    cases = [
        (head("GET", "/ws", no_key), 400),  # a failed handshake
        (head("GET", "/ws", no_connection), 426),
        (head("GET", "/" + "a" * 9000, {"Host": "x"}), 414),  # request line over 8 KiB
        (head("GET", "/", {"Host": "x", "X-Big": "b" * 9000}), 431),  # a header line over 8 KiB
        (head("GET", "/", {"Host": "x", **{f"X-{i}": "1" for i in range(200)}}), 431),  # too many
    ]
    for data, expected in cases:
        status, headers, _ = await exchange(port, data)
        assert status == expected, (expected, headers)
        assert_secure(headers)
    # The 101 is no document (a browser applies none of them to it), and websockets keeps it for
    # the connection's life: it goes bare, 1.2 KB less on every idle connection.
    status, headers, _ = await exchange(port, head("GET", "/ws", upgrade(port)))
    assert status == 101
    assert "content-security-policy" not in headers and "x-frame-options" not in headers, headers
    assert "upgrade" in headers  # (the names are lower-cased)


async def test_the_503_of_a_stopping_server_carries_the_security_headers(make_server) -> None:
    app = await make_server()
    port = app.port
    reader, writer = await open_socket(port)
    try:
        await until(lambda: app.gateway.gate.count == 1, what="the socket accepted")
        app.stop_accepting()  # the handshake now ends in 503
        writer.write(head("GET", "/ws", upgrade(port)))
        await writer.drain()
        status, headers, _ = await read_response(reader)
    finally:
        writer.close()
    assert status == 503
    assert_secure(headers)


# --- 5. a text frame that is not UTF-8 ---------------------------------------------------------


def masked(opcode: int, payload: bytes, fin: bool = True) -> bytes:
    """A client frame of at most 125 bytes, masked as RFC 6455 requires."""
    mask = os.urandom(4)
    body = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    return bytes([(0x80 if fin else 0) | opcode, 0x80 | len(payload)]) + mask + body


async def read_frame(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    b0, b1 = await asyncio.wait_for(reader.readexactly(2), DEADLINE)
    n = b1 & 0x7F
    if n == 126:
        n = int.from_bytes(await reader.readexactly(2), "big")
    elif n == 127:
        n = int.from_bytes(await reader.readexactly(8), "big")
    return b0 & 0x0F, await asyncio.wait_for(reader.readexactly(n), DEADLINE)


async def close_code_after(port: int, frames: bytes) -> int:
    """Open a WebSocket, send `frames`, and return the code of the server's close frame
    (skipping any data frames before it)."""
    reader, writer = await open_socket(port)
    try:
        writer.write(head("GET", "/ws", upgrade(port)))
        status, _, _ = await read_response(reader)
        assert status == 101
        writer.write(frames)
        await writer.drain()
        while True:
            opcode, payload = await read_frame(reader)
            if opcode == 0x8:
                writer.write(masked(0x8, payload[:2]))  # answer the close, as a client should
                return int.from_bytes(payload[:2], "big")
    finally:
        writer.close()


async def test_a_text_frame_that_is_not_utf8_closes_with_1007(make_server) -> None:
    app = await make_server()
    assert await close_code_after(app.port, masked(0x1, b"\xff\xfe")) == 1007
    # Split over fragments, and after a valid text frame (which is only refused: bad-frame).
    split = masked(0x1, b"ok") + masked(0x1, b"\xe2\x82", fin=False) + masked(0x0, b"(")
    assert await close_code_after(app.port, split) == 1007
    await until(lambda: app.metrics.closes[1007] == 2, what="the 1007 closes counted")


async def test_a_peer_that_never_closes_after_a_1009_is_dropped(make_server) -> None:
    """websockets fails the connection (close frame, then EOF) and waits close_timeout for the
    peer's TCP close only inside a close() call; nothing made one, so a peer that never closed
    held its socket until the keepalive's next ping (20 s), for ever without pings."""
    app = await make_server(close_timeout_s=1.0, ping_interval_s=0)
    gate = app.gateway.gate
    reader, writer = await open_socket(app.port)
    try:
        writer.write(head("GET", "/ws", upgrade(app.port)))
        status, _, _ = await read_response(reader)
        assert status == 101
        writer.write(masked(0x2, msgpack.packb({"t": "hello", "rid": 1, "v": 1})))
        while True:  # the welcome, whatever comes with it
            opcode, payload = await read_frame(reader)
            assert opcode == 0x2
            if msgpack.unpackb(payload).get("rid") == 1:
                assert msgpack.unpackb(payload)["t"] == "welcome"
                break
        too_big = app.settings.max_frame + 1
        writer.write(bytes([0x82, 0xFE]) + too_big.to_bytes(2, "big") + b"\0\0\0\0" + b"x" * too_big)
        await writer.drain()
        while opcode != 0x8:
            opcode, payload = await read_frame(reader)
        assert int.from_bytes(payload[:2], "big") == 1009
        # The client answers nothing and keeps its socket open: the server lets go of it.
        await until(lambda: gate.count == 0 and not app.gateway.conns, what="the socket dropped")
    finally:
        writer.close()
