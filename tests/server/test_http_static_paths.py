"""Static file paths are percent-decoded (server/net/http.py `_static`, docs/operations.md §10):
`/my%20file.js` serves `my file.js`, and what a path decodes to is still held to the static
folder (`%2e%2e/`, `%2f`: 404) or refused as malformed (`%00`, bytes that are not UTF-8: 400),
never a 500 and a logged traceback. Raw requests over a socket to a real server on 127.0.0.1,
so that the path is sent exactly as written.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest

from server.net.http import MAX_PATH

SECRET = b"outside the static folder"


async def get(app, path: str) -> tuple[int, bytes]:
    """One GET on a fresh connection: (status, body); the server answers and closes."""
    reader, writer = await asyncio.open_connection("127.0.0.1", app.port)
    writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{app.port}\r\n\r\n".encode())
    await writer.drain()
    try:
        top = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
        body = await asyncio.wait_for(reader.read(-1), 10)
    finally:
        writer.close()
    return int(top.split()[1]), body


@pytest.fixture
def static(tmp_path: Path) -> Path:
    (tmp_path / "secret.txt").write_bytes(SECRET)
    root = tmp_path / "static"
    (root / "sub").mkdir(parents=True)
    (root / "index.html").write_bytes(b"<!doctype html>index")
    (root / "my file.js").write_bytes(b"spaced")
    (root / "sub" / "a.js").write_bytes(b"in sub")
    (root / "caf\u00e9.css").write_bytes(b"accented")
    (root / "100%.txt").write_bytes(b"percent")
    return root


async def test_a_percent_encoded_name_is_served(make_server, static: Path) -> None:
    app = await make_server(static=str(static))
    assert await get(app, "/my%20file.js") == (200, b"spaced")
    assert await get(app, "/caf%C3%A9.css") == (200, b"accented")
    assert await get(app, "/100%25.txt") == (200, b"percent")
    assert await get(app, "/sub%2Fa.js") == (200, b"in sub")  # %2f: a separator inside the folder
    # Decoded once only, and `+` is no space in a path.
    assert (await get(app, "/my%2520file.js"))[0] == 404
    assert (await get(app, "/my+file.js"))[0] == 404


async def test_a_decoded_path_never_leaves_the_static_folder(
    make_server, static: Path, caplog: pytest.LogCaptureFixture
) -> None:
    app = await make_server(static=str(static))
    with caplog.at_level(logging.INFO):
        for path in (
            "/%2e%2e/secret.txt",
            "/%2E%2E%2Fsecret.txt",
            "/sub/%2e%2e/%2e%2e/secret.txt",
            "/..%2fsecret.txt",
            "/%2f%2e%2e%2fsecret.txt",
            "/%2fetc%2fpasswd",
        ):
            status, body = await get(app, path)
            assert status == 404, (path, status)
            assert SECRET not in body, path
        # Malformed once decoded: a NUL (no file name holds one), bytes that are not UTF-8.
        for path in ("/index.html%00", "/%00", "/my%20file.js%00.png", "/%ff.js", "/caf%C3.css"):
            status, body = await get(app, path)
            assert status == 400, (path, status)
        # Broken escapes are no escapes: a name like any other, here missing.
        assert (await get(app, "/%zz.js"))[0] == 404
        assert (await get(app, "/%"))[0] == 404
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not errors, [r.getMessage() for r in errors]


async def test_the_length_cap_is_on_the_path_as_sent(make_server, static: Path) -> None:
    """MAX_PATH bounds the request as it arrives: an encoded path over it is 414 even though it
    decodes to far fewer characters; one within it is decoded and served."""
    app = await make_server(static=str(static))
    assert (await get(app, "/" + "%61" * (MAX_PATH // 3 + 1)))[0] == 414
    padded = "/" + "%2e/" * ((MAX_PATH - 20) // 4) + "my%20file.js"
    assert len(padded) <= MAX_PATH
    assert await get(app, padded) == (200, b"spaced")
