"""/metrics for an operator (server/metrics.py, server/net/http.py, docs/operations.md §10): a Redis
outage shows as `solrace_redis_up 0` and a gap in `solrace_races` within RACE_COUNT_TIMEOUT_S, not as
"0 races" or a scrape that hangs for --redis-timeout-s; every series has its HELP and TYPE lines, and
the document names every family the server exposes. Real servers and redis-servers on 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import sys
from pathlib import Path

import pytest
from waiting import DEADLINE, until

from protocol.version import software_version
from server.net.http import RACE_COUNT_TIMEOUT_S
from server.storage.embedded_redis import EmbeddedRedis

ROOT = Path(__file__).resolve().parents[2]
OPERATIONS = ROOT / "docs" / "operations.md"

# Far above RACE_COUNT_TIMEOUT_S: a scrape that waited for the Redis reply timeout would show.
REDIS_TIMEOUT_S = 20.0
# What a scrape may take beyond RACE_COUNT_TIMEOUT_S on a loaded machine, still far below REDIS_TIMEOUT_S.
SCRAPE_SLACK_S = 6.0


async def scrape(port: int) -> tuple[float, str]:
    """Seconds the GET /metrics took, and its body (status 200 asserted)."""
    loop = asyncio.get_running_loop()
    t0 = loop.time()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(f"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
        await writer.drain()
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), DEADLINE)
        body = await asyncio.wait_for(reader.read(-1), DEADLINE)
    finally:
        writer.close()
    assert head.startswith(b"HTTP/1.1 200 "), head
    return loop.time() - t0, body.decode()


def samples(text: str, name: str) -> list[str]:
    return [line for line in text.splitlines() if re.match(rf"{name}[{{ ]", line)]


@pytest.fixture
def own_redis(tmp_path: Path):
    """A redis-server of this test's own, to stop and kill; set up before the server, so that it
    is stopped after the server."""
    proc = EmbeddedRedis(tmp_path / "r", appendonly=False).start()
    try:
        yield proc
    finally:
        proc.stop()


@pytest.mark.skipif(sys.platform == "win32", reason="SIGSTOP")
async def test_a_redis_outage_is_a_gap_not_zero_races(own_redis: EmbeddedRedis, make_server) -> None:
    app = await make_server(redis=own_redis.url, redis_timeout_s=REDIS_TIMEOUT_S)
    _, text = await scrape(app.port)
    assert samples(text, "solrace_redis_up") == ["solrace_redis_up 1"], text
    assert len(samples(text, "solrace_races")) == 3, text

    # Stopped (it still accepts connections, answers nothing): the count gives up on its own timeout.
    assert own_redis.proc is not None
    os.kill(own_redis.proc.pid, signal.SIGSTOP)
    try:
        took, text = await scrape(app.port)
    finally:
        os.kill(own_redis.proc.pid, signal.SIGCONT)
    assert took < RACE_COUNT_TIMEOUT_S + SCRAPE_SLACK_S, took
    assert samples(text, "solrace_redis_up") == ["solrace_redis_up 0"], text
    assert samples(text, "solrace_races") == [], text
    assert samples(text, "solrace_connections"), text  # the process's own series are all there

    # Killed: refused at once, the same gap.
    own_redis.stop()
    took, text = await scrape(app.port)
    assert took < RACE_COUNT_TIMEOUT_S + SCRAPE_SLACK_S, took
    assert samples(text, "solrace_redis_up") == ["solrace_redis_up 0"], text
    assert samples(text, "solrace_races") == [], text

    own_redis.start()

    async def back() -> bool:
        _, text = await scrape(app.port)
        return (
            samples(text, "solrace_redis_up") == ["solrace_redis_up 1"]
            and len(samples(text, "solrace_races")) == 3
        )

    await until(back, what="solrace_redis_up 1 and solrace_races after the restart")


def families(text: str) -> dict[str, str]:
    """Each family's type, after checking that every sample belongs to a family with exactly one
    HELP and one TYPE line, both before its samples."""
    helps: set[str] = set()
    types: dict[str, str] = {}
    for line in text.splitlines():
        if line.startswith("# HELP "):
            name = line.split()[2]
            assert name not in helps, f"two HELP lines for {name}"
            assert len(line.split(None, 3)) == 4, f"empty HELP for {name}"
            helps.add(name)
        elif line.startswith("# TYPE "):
            _, _, name, kind = line.split()
            assert name not in types, f"two TYPE lines for {name}"
            assert kind in ("counter", "gauge", "histogram"), line
            types[name] = kind
        else:
            match = re.match(r"([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? (\S+)$", line)
            assert match, f"not a sample line: {line!r}"
            float(match.group(3))
            name = match.group(1)
            if name not in types:
                base = re.sub(r"_(bucket|sum|count)$", "", name)
                assert types.get(base) == "histogram", f"{name}: no TYPE line before it"
                name = base
            assert name in helps, f"{name}: no HELP line before it"
    assert helps == set(types), helps ^ set(types)
    return types


def documented_families() -> set[str]:
    text = OPERATIONS.read_text()
    section = text.split("\n## 10. ", 1)[1].split("\n## 11. ", 1)[0]
    return set(re.findall(r"\b((?:solrace|process)_[a-z0-9_]+)", section))


async def test_every_series_has_help_and_type_and_the_document_names_them(server) -> None:
    _, text = await scrape(server.port)
    exposed = families(text)
    assert set(exposed) == documented_families(), (
        "exposed, not in operations.md §10:",
        set(exposed) - documented_families(),
        "in §10, not exposed:",
        documented_families() - set(exposed),
    )
    assert samples(text, "solrace_build_info") == [f'solrace_build_info{{version="{software_version()}"}} 1']
    if sys.platform == "linux":
        fds = samples(text, "process_open_fds")
        rss = samples(text, "process_resident_memory_bytes")
        assert len(fds) == 1 and int(fds[0].split()[1]) > 0, text
        assert len(rss) == 1 and int(rss[0].split()[1]) > 1_000_000, text
