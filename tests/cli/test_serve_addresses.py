"""`solrace serve` on a --host that names several addresses (a name such as localhost that
resolves to 127.0.0.1 and ::1; "" for every interface) listens on each: with --port 0 they
share one port, as they share a port given, so that the printed URL reaches every one of
them, and stdout's second line names each (server/app.py `shared_port`, server/cli.py
`listening_lines`, docs/operations.md §3). With one port per address (the OS's choice for
each), the line told only the first.

The name is made up and resolved by a stand-in for `socket.getaddrinfo` in the server's
process, to the loopback addresses only, on asyncio's event loop (uvloop resolves in C, out of
a stand-in's reach): a real `solrace serve` process, a real Redis, real requests to each address.
"""

from __future__ import annotations

import http.client
import re
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from waiting import DEADLINE

ROOT = Path(__file__).resolve().parents[2]
NAME = "twice.solrace.test"

# The server's process: NAME, "" and None (what "" becomes for the bind) resolve to 127.0.0.1
# and ::1; uvloop is hidden, so the event loop is asyncio's, whose resolver is the stand-in.
TWICE = f"""
import socket, sys
sys.modules["uvloop"] = None
real = socket.getaddrinfo
def stand_in(host, *args, **kwargs):
    if host in ({NAME!r}, "", None):
        return real("127.0.0.1", *args, **kwargs) + real("::1", *args, **kwargs)
    return real(host, *args, **kwargs)
socket.getaddrinfo = stand_in
from client.cli import main
sys.exit(main(["serve", *sys.argv[1:]]))
"""

FIRST = re.compile(
    r"^solrace listening on ws://(?P<host>[^/]*):(?P<port>\d+)/ws  "
    r"\(web client and metrics: http://(?P=host):(?P=port)/\)$"
)


def ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as s:
            s.bind(("::1", 0))
    except OSError:
        return False
    return True


pytestmark = pytest.mark.skipif(not ipv6_loopback(), reason="needs the IPv6 loopback address ::1")


def healthz(address: str, port: int) -> int:
    conn = http.client.HTTPConnection(address, port, timeout=DEADLINE)
    try:
        conn.request("GET", "/healthz")
        return conn.getresponse().status
    finally:
        conn.close()


def serve_twice(
    host: str, redis_url: str, addresses: tuple[str, ...] = ("127.0.0.1", "::1")
) -> tuple[str, str, int, str]:
    """`solrace serve --host HOST --port 0`: (its first stdout line, the rest of its stdout,
    its exit status, its stderr), each of `addresses` asked for /healthz on the first line's
    port before it is stopped."""
    proc = subprocess.Popen(
        [sys.executable, "-c", TWICE, "--host", host, "--port", "0", "--redis", redis_url]
        + ["--bot-workers", "0", "--certify-workers", "0"],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline().rstrip("\n")
        match = FIRST.match(first)
        assert match, first
        port = int(match["port"])
        # The port of the first line answers on every address.
        for address in addresses:
            try:
                status = healthz(address, port)
            except ConnectionRefusedError:
                pytest.fail(f"{address} port {port} refused the connection ({first!r})")
            assert status == 200, (address, status)
        proc.send_signal(signal.SIGTERM)
        proc.wait(DEADLINE)  # its stderr, a few lines, fits in the pipe meanwhile
        # Through the pipes' own readers: the first readline() may have buffered what follows.
        assert proc.stderr is not None
        rest, err = proc.stdout.read(), proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return first, rest, proc.returncode, err


def test_a_name_of_two_addresses_listens_on_both_on_one_port(clean_redis: str) -> None:
    first, rest, status, err = serve_twice(NAME, clean_redis)
    match = FIRST.match(first)
    assert match is not None
    assert match["host"] == NAME  # the first line as ever: the name given, its port
    port = match["port"]
    assert rest.splitlines() == [f"solrace listening on 2 addresses: 127.0.0.1:{port}, [::1]:{port}"]
    assert status == 0, err
    started = [line for line in err.splitlines() if "listening on" in line]
    assert len(started) == 1, err
    assert f"listening on ws://{NAME}:{port}/ws (127.0.0.1:{port}, [::1]:{port})," in started[0]


def test_every_interface_names_a_host_a_client_can_reach(clean_redis: str) -> None:
    """--host "" (every interface): the URL named no host at all (`ws://:PORT/ws`, which the bot
    workers were given too); it names the first address now."""
    first, rest, status, err = serve_twice("", clean_redis)
    match = FIRST.match(first)
    assert match is not None
    assert match["host"] == "127.0.0.1", first
    port = match["port"]
    assert rest.splitlines() == [f"solrace listening on 2 addresses: 127.0.0.1:{port}, [::1]:{port}"]
    assert status == 0, err


def test_one_address_is_one_line(clean_redis: str) -> None:
    first, rest, status, err = serve_twice("127.0.0.1", clean_redis, ("127.0.0.1",))
    assert FIRST.match(first), first
    assert rest == ""
    assert status == 0, err


async def test_a_port_taken_between_the_look_and_the_bind_is_looked_for_again(
    fast_settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`shared_port` finds a port free on every address; another process may bind it on one of
    them before the server does: the start looks again rather than fail (in-process, the
    test's asyncio loop resolving NAME through the same stand-in)."""
    import server.app

    real_resolve, real_shared = socket.getaddrinfo, server.app.shared_port

    def stand_in(host, *args, **kwargs):
        if host == NAME:
            return real_resolve("127.0.0.1", *args, **kwargs) + real_resolve("::1", *args, **kwargs)
        return real_resolve(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", stand_in)
    with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as taken:
        taken.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        taken.bind(("::1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        looks: list[str] = []

        def taken_first(host: str) -> int:
            looks.append(host)
            return port if len(looks) == 1 else real_shared(host)

        monkeypatch.setattr(server.app, "shared_port", taken_first)
        app = server.app.App(fast_settings.replace(host=NAME, port=0))
        try:
            await app.start()
            assert looks == [NAME, NAME]
            assert app.port != port
            assert app.addresses == [f"127.0.0.1:{app.port}", f"[::1]:{app.port}"]
        finally:
            await app.stop()  # a start that failed half-way too
