"""What `Unreachable.plain()` says (client/library/errors.py): "no server answered at HOST:PORT
— is it running?" only where nothing answered (a refused connection, a name that does not
resolve). It said so too when a plain HTTP server, a WebSocket server that is not solrace, or a
server without TLS (to an https:// URL) answered, and for an ftp:// URL: `solrace verify`,
`analyze`, `replay` and the terminal apps sent the user looking for a server that was running."""

from __future__ import annotations

import http.server
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import websockets

from client.library import Unreachable, connect

ROOT = Path(__file__).resolve().parents[2]


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base's name
        pass


@pytest.fixture
def http_port() -> Iterator[int]:
    """A plain HTTP server (no WebSocket, no TLS) on 127.0.0.1."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


def closed_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def plain(*urls: str) -> str:
    with pytest.raises(Unreachable) as failed:
        async with connect(list(urls), name="x", timeout=10):
            pass
    return failed.value.plain()


async def test_a_plain_http_server_answered(http_port: int) -> None:
    said = await plain(f"http://127.0.0.1:{http_port}/")
    assert said.startswith(f"127.0.0.1:{http_port} answered, but not as a solrace WebSocket server ("), said
    assert "is it running" not in said


async def test_a_websocket_server_that_is_not_solrace_answered() -> None:
    async def echo(ws: websockets.ServerConnection) -> None:
        async for message in ws:
            await ws.send(message)

    async with websockets.serve(echo, "127.0.0.1", 0) as server:
        port = server.sockets[0].getsockname()[1]
        said = await plain(f"ws://127.0.0.1:{port}/ws")
    assert said.startswith(f"127.0.0.1:{port} answered, but not as a solrace WebSocket server ("), said


async def test_https_to_a_server_without_tls(http_port: int) -> None:
    said = await plain(f"https://127.0.0.1:{http_port}/")
    assert said == (
        f"127.0.0.1:{http_port} answered, but not with the TLS a wss:// or https:// URL asks for: "
        "try ws:// or http://"
    )


async def test_a_url_that_is_not_a_servers() -> None:
    said = await plain("ftp://127.0.0.1:1/ws")
    assert said == "ftp://127.0.0.1:1/ws is not a server's URL (ws://, wss://, http:// or https://)"


async def test_nothing_answering_is_still_asked_about(http_port: int) -> None:
    a, b = closed_port(), closed_port()
    assert await plain(f"ws://127.0.0.1:{a}/ws") == f"no server answered at 127.0.0.1:{a} — is it running?"
    assert (
        await plain("ws://nosuchhost.invalid/ws")
        == "no server answered at nosuchhost.invalid — is it running?"
    )
    # Several URLs: those where nothing answered in one sentence, what did answer in its own.
    said = await plain(f"ws://127.0.0.1:{a}/ws", f"http://127.0.0.1:{http_port}/", f"ws://127.0.0.1:{b}/ws")
    first, second = said.split("; ")
    assert first == f"no server answered at 127.0.0.1:{a} or 127.0.0.1:{b} — is it running?", said
    assert second.startswith(f"127.0.0.1:{http_port} answered, but not as a solrace WebSocket server"), said


def test_verify_says_what_answered(http_port: int) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "client.cli",
            "verify",
            "--url",
            f"http://127.0.0.1:{http_port}/",
            "--race",
            "r1",
        ],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done
    assert done.stderr.strip().startswith(
        f"solrace verify: cannot fetch the replay: 127.0.0.1:{http_port} answered, but not as a solrace "
        "WebSocket server"
    ), done.stderr


@pytest.mark.parametrize("how", [["--game", "fours-up", "--quick"], ["--arena", "a1"]])
def test_bot_says_where_nothing_answered(how: list[str]) -> None:
    # It printed the library's own text: "ws://...: ConnectionRefusedError: [Errno 111] ...".
    port = closed_port()
    done = subprocess.run(
        [sys.executable, "-m", "client.cli", "bot", "--url", f"ws://127.0.0.1:{port}/ws", *how],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1, done
    assert done.stderr.strip() == f"solrace bot: no server answered at 127.0.0.1:{port} — is it running?", (
        done
    )
