"""The log line of each close the server starts for a client's behaviour (server/net/close_log.py
`CloseLog`, docs/operations.md §10): the client's address (the forwarded one behind a trusted proxy),
the code and the reason, for websockets' own 1009 as for our hello timeout; bounded per address and
in all under a flood, the rest summed up. Sockets the socket gate drops at accept get such a line too
(`refused at accept: ...`), under the same bounds. Real servers on 127.0.0.1, real Redis.
"""

from __future__ import annotations

import asyncio
import base64
import logging
import math
import os
import re

import pytest
from waiting import DEADLINE, until
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

import server.net.close_log as close_log
from server.net.close_log import CLOSE_LOG_PER_ADDR, CLOSE_LOG_PER_S

LOGGER = "solrace.gateway"
# Small enough to go fast, well under the 128 sockets one address may hold (MAX_CONN_PER_ADDR + pending).
BATCH = 25
CLOSED = re.compile(r"closed the connection of (\S+) with (\d+): (.*)")
SUPPRESSED = re.compile(r"suppressed (\d+) close lines")


def closes(caplog: pytest.LogCaptureFixture) -> list[tuple[str, int, str, float]]:
    """(address, code, reason, time) of each close line logged so far."""
    out = []
    for record in caplog.records:
        if record.name == LOGGER and (match := CLOSED.fullmatch(record.getMessage())):
            out.append((match.group(1), int(match.group(2)), match.group(3), record.created))
    return out


def suppressed(caplog: pytest.LogCaptureFixture) -> int:
    return sum(
        int(match.group(1))
        for record in caplog.records
        if record.name == LOGGER and (match := SUPPRESSED.match(record.getMessage()))
    )


async def open_ws(app, forwarded: str | None) -> ClientConnection:
    headers = {} if forwarded is None else {"X-Forwarded-For": forwarded}
    return await asyncio.wait_for(connect(app.ws_url, compression=None, additional_headers=headers), DEADLINE)


async def oversized(app, forwarded: str | None = None) -> int | None:
    """A frame one byte over MAX_FRAME; the close code the server sent."""
    ws = await open_ws(app, forwarded)
    try:
        await ws.send(bytes(app.settings.max_frame + 1))
    except ConnectionClosed:
        pass
    await asyncio.wait_for(ws.wait_closed(), DEADLINE)
    return ws.close_code


async def silent(app, forwarded: str | None = None) -> int | None:
    """No hello: the close code the server sent at HELLO_TIMEOUT."""
    ws = await open_ws(app, forwarded)
    await asyncio.wait_for(ws.wait_closed(), DEADLINE)
    return ws.close_code


async def test_an_oversized_frame_and_a_hello_timeout_are_logged_with_address_and_code(
    make_server, caplog: pytest.LogCaptureFixture
) -> None:
    app = await make_server(trusted_proxies="127.0.0.1", hello_timeout_s=0.5)
    with caplog.at_level(logging.INFO, logger=LOGGER):
        assert await oversized(app, "198.51.100.7") == 1009
        assert await silent(app, "198.51.100.8") == 1008
        await until(lambda: len(closes(caplog)) >= 2, what="two close lines")
        # A client that says goodbye itself is not logged.
        ws = await open_ws(app, "198.51.100.9")
        await ws.close()
        await until(lambda: app.metrics.connections == 0, what="the connections gone")
    lines = {addr: (code, reason) for addr, code, reason, _ in closes(caplog)}
    assert set(lines) == {"198.51.100.7", "198.51.100.8"}, lines
    assert lines["198.51.100.7"][0] == 1009
    assert lines["198.51.100.8"] == (1008, "no hello in time")
    assert app.metrics.closes[1009] == 1  # websockets' own close is counted too


async def test_a_flood_of_bad_clients_logs_a_bounded_number_of_lines(
    make_server, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(close_log, "CLOSE_LOG_SUMMARY_S", 0.2)  # the summary without a long wait
    app = await make_server(trusted_proxies="127.0.0.1")
    one, many = 100, 200
    with caplog.at_level(logging.INFO, logger=LOGGER):
        # One address: at most CLOSE_LOG_PER_ADDR lines.
        for start in range(0, one, BATCH):
            codes = await asyncio.gather(*(oversized(app) for _ in range(min(BATCH, one - start))))
            assert set(codes) == {1009}
        # Many addresses (behind the trusted proxy): at most CLOSE_LOG_PER_S lines a second.
        for start in range(0, many, BATCH):
            batch = range(start, min(start + BATCH, many))
            codes = await asyncio.gather(*(oversized(app, f"10.9.{i // 250}.{i % 250 + 1}") for i in batch))
            assert set(codes) == {1009}
        # Every close is either a line or counted in a summary.
        await until(
            lambda: len(closes(caplog)) + suppressed(caplog) == one + many,
            what="every close logged or summed up",
        )
    lines = closes(caplog)
    local = [line for line in lines if line[0] == "127.0.0.1"]
    assert 1 <= len(local) <= CLOSE_LOG_PER_ADDR, local
    spread = [line for line in lines if line[0].startswith("10.9.")]
    span = spread[-1][3] - spread[0][3]
    # Fixed one-second windows: a span of s seconds touches at most ceil(s) + 1 of them.
    assert len(spread) <= CLOSE_LOG_PER_S * (math.ceil(span) + 1), (len(spread), span)
    assert suppressed(caplog) >= one - CLOSE_LOG_PER_ADDR
    assert app.metrics.closes[1009] == one + many


async def test_a_close_websockets_started_is_the_one_counted_and_logged(make_server, caplog) -> None:
    """A client whose oversized frame websockets answered with 1009 and that never answers the
    close: the hello timeout that fires while the close waits is no second close (it was once
    counted and logged as 1008 instead of the 1009 the client got)."""
    app = await make_server(hello_timeout_s=0.3, close_timeout_s=2.0)
    with caplog.at_level(logging.INFO, logger=LOGGER):
        reader, writer = await asyncio.open_connection("127.0.0.1", app.port)
        key = base64.b64encode(os.urandom(16)).decode()
        writer.write(
            (
                f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
            ).encode()
        )
        assert (await reader.readuntil(b"\r\n\r\n")).startswith(b"HTTP/1.1 101")
        # a masked binary frame header announcing one byte over MAX_FRAME; then silence
        writer.write(bytes([0x82, 0xFF]) + (app.settings.max_frame + 1).to_bytes(8, "big") + os.urandom(4))
        await writer.drain()
        assert (await reader.readexactly(2))[0] == 0x88  # the close frame (1009), not answered
        # (the hello timeout passes while websockets waits up to close_timeout for the answer)
        await until(lambda: not app.gateway.conns, what="the connection gone")
        writer.close()
    assert app.metrics.closes[1009] == 1 and app.metrics.closes[1008] == 0, app.metrics.closes
    assert [code for _addr, code, _reason, _t in closes(caplog)] == [1009], closes(caplog)


# --- sockets dropped at accept (server/net/admission.py `SocketGate`) ---------------------------

REFUSED = re.compile(r"refused at accept: (.*)")


def refusals(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        match.group(1)
        for record in caplog.records
        if record.name == LOGGER and (match := REFUSED.fullmatch(record.getMessage()))
    ]


async def dropped_unread(port: int) -> bool:
    """A new TCP connection that sends a request: True if it is closed without an answer."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        await writer.drain()
        return await asyncio.wait_for(reader.read(-1), DEADLINE) == b""
    except (ConnectionResetError, BrokenPipeError):
        return True
    finally:
        writer.close()


async def test_sockets_refused_at_accept_are_logged_bounded_and_counted(
    make_server, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Over MAX_CONN_PER_ADDR + --max-pending-per-addr a socket is dropped unread: one line with the
    address and the limit, within the close log's bounds (a flood of them is a few lines and a
    summary), and `solrace_accept_refused_total{limit="address"}`."""
    monkeypatch.setattr(close_log, "CLOSE_LOG_SUMMARY_S", 0.2)
    app = await make_server(max_conn_per_addr=1, max_pending_per_addr=1)
    gate = app.gateway.gate
    with caplog.at_level(logging.INFO, logger=LOGGER):
        idle = [await asyncio.open_connection("127.0.0.1", app.port) for _ in range(2)]
        await until(lambda: gate.by_addr.get("127.0.0.1") == 2, what="two sockets accepted")
        flood = 3 * CLOSE_LOG_PER_ADDR
        assert all(await asyncio.gather(*(dropped_unread(app.port) for _ in range(flood))))
        await until(
            lambda: len(refusals(caplog)) + suppressed(caplog) == flood,
            what="every refusal logged or summed up",
        )
        for _, writer in idle:
            writer.close()
    lines = refusals(caplog)
    assert len(lines) == CLOSE_LOG_PER_ADDR, lines
    assert lines[0] == (
        "too many connections from 127.0.0.1 (2 on this process: MAX_CONN_PER_ADDR + --max-pending-per-addr)"
    )
    assert app.metrics.accept_refused == {"address": flood}
    text = app.metrics.render(None)
    assert f'solrace_accept_refused_total{{limit="address"}} {flood}' in text
    assert 'solrace_accept_refused_total{limit="total"} 0' in text


async def test_a_socket_over_max_connections_is_logged(make_server, caplog: pytest.LogCaptureFixture) -> None:
    app = await make_server(max_connections=2, trusted_proxies="127.0.0.1")
    gate = app.gateway.gate
    with caplog.at_level(logging.INFO, logger=LOGGER):
        idle = [await asyncio.open_connection("127.0.0.1", app.port) for _ in range(2)]
        await until(lambda: gate.count == 2, what="two sockets accepted")
        assert await dropped_unread(app.port)
        await until(lambda: refusals(caplog), what="the refusal logged")
        for _, writer in idle:
            writer.close()
    assert refusals(caplog) == [
        "a connection from 127.0.0.1: this process holds its most connections (2: --max-connections, "
        "or what the open-files limit leaves)"
    ]
    assert app.metrics.accept_refused == {"total": 1}
