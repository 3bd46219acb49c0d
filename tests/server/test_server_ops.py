"""Operations: HTTP health/metrics/static, the embedded Redis, graceful shutdown, settings."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
from must import must
from test_server_race import make_race, play
from waiting import DEADLINE, until
from wsclient import Raw, player

from protocol.rules import GAMES, game_facts
from server.config import Settings
from server.storage.embedded_redis import EmbeddedRedis

ROOT = Path(__file__).resolve().parents[2]


def http_get(url: str) -> tuple[int, str, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=5) as resp:
            return resp.status, resp.headers.get("Content-Type", ""), resp.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Content-Type", ""), e.read()


async def get(url: str) -> tuple[int, str, bytes]:
    return await asyncio.to_thread(http_get, url)


async def test_health_metrics_static(server):
    base = server.http_url
    assert (await get(base + "healthz"))[0] == 200
    a = await player(server.ws_url, "ada")
    rid = await make_race(server, [a], "fours-up")
    await play(a, rid, ["draw"])
    await a.request("move", race=rid, n=1, move="t0>t0")
    status, ctype, body = await get(base + "metrics")
    text = body.decode()
    assert status == 200 and ctype.startswith("text/plain")
    for needle in (
        "solrace_connections 1",
        'solrace_races{status="running"} 1',
        'solrace_moves_total{result="accepted",reason=""} 1',
        'solrace_moves_total{result="refused",reason="same-pile"} 1',
        "solrace_move_latency_seconds_bucket",
        "solrace_move_latency_seconds_count 1",
    ):
        assert needle in text, needle
    index = ROOT / "client" / "web" / "static" / "index.html"
    status, ctype, body = await get(base)
    if index.exists():
        assert status == 200 and ctype.startswith("text/html") and body == index.read_bytes()
    assert (await get(base + "../../pyproject.toml"))[0] == 404
    assert (await get(base + "no/such/file.js"))[0] == 404
    await a.close()


async def test_games_json_is_the_engines_facts(server):
    """The web client draws boards from /games.json: the facts of protocol.rules, nothing else."""
    status, ctype, body = await get(server.http_url + "games.json")
    assert status == 200 and ctype.startswith("application/json")
    assert json.loads(body) == json.loads(json.dumps(game_facts()))
    assert set(json.loads(body)) == set(GAMES)


async def test_healthz_503_when_redis_is_gone(make_server, tmp_path):
    redis_proc = EmbeddedRedis(tmp_path / "r", appendonly=False).start()
    app = await make_server(redis=redis_proc.url)
    assert (await get(app.http_url + "healthz"))[0] == 200
    redis_proc.stop()
    assert (await get(app.http_url + "healthz"))[0] == 503
    # The move pipe's own state is part of the check: moves fail until it is back.
    await until(lambda: app.store.health.pipe_down() is not None, what="the pipe down")
    redis_proc.start()

    async def healthy() -> bool:
        return (await get(app.http_url + "healthz"))[0] == 200

    await until(healthy, interval=0.01, what="/healthz 200 after the restart")
    assert app.store.pipe.ready


def test_settings_from_flags_and_env():
    import argparse

    parser = argparse.ArgumentParser()
    Settings.add_arguments(parser)
    args = parser.parse_args(["--max-frame", "8192", "--port", "9000"])
    s = Settings.from_env(
        {"SOLRACE_PORT": "7000", "SOLRACE_RATE": "7", "SOLRACE_HELLO_TIMEOUT_S": "2.5"}, args
    )
    assert s.max_frame == 8192 and s.port == 9000 and s.rate == 7 and s.hello_timeout_s == 2.5
    limits = s.limits()
    assert limits["MAX_FRAME"] == 8192 and limits["HELLO_TIMEOUT"] == 3 and limits["RATE"] == 7
    assert all(isinstance(v, int) for v in limits.values())


def _port_open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.3)
        return s.connect_ex(("127.0.0.1", port)) == 0


@pytest.mark.timeout(60)
async def test_serve_with_private_redis_and_graceful_shutdown(tmp_path):
    """`solrace serve` alone: private redis-server with AOF in --data; SIGTERM closes clients with 1012."""
    data = tmp_path / "data"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "client.cli",
            "serve",
            "--port",
            "0",
            "--data",
            str(data),
            "--countdown-ms",
            "50",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "SOLRACE_HOST": "127.0.0.1"},
    )
    try:
        line = await asyncio.to_thread(must(proc.stdout).readline)
        assert "ws://127.0.0.1:" in line and "http://127.0.0.1:" in line, line + must(proc.stderr).read()
        url = line.split("listening on ", 1)[1].split()[0]
        a = await player(url, "ada")
        rid = await make_race_simple(a)
        ack = await a.request("move", race=rid, n=0, move="draw")
        assert ack["t"] == "ack"
        log_line = await asyncio.to_thread(
            must(proc.stderr).readline
        )  # "private redis-server on redis://..."
        assert "private redis-server on redis://127.0.0.1:" in log_line, log_line
        redis_port = int(log_line.split("redis://127.0.0.1:", 1)[1].split("/", 1)[0])
        assert _port_open(redis_port)
        proc.send_signal(signal.SIGTERM)
        await asyncio.wait_for(a.reader, DEADLINE)
        assert a.closed == 1012
        assert await asyncio.to_thread(proc.wait, 15) == 0
        assert any(data.rglob("*.aof")), list(data.iterdir())  # append-only persistence
        assert not _port_open(redis_port)  # the private redis-server is gone
    finally:
        if proc.poll() is None:
            proc.kill()


async def make_race_simple(a: Raw) -> str:
    rid = (await a.request("create", game="racing-aces", seats=1))["race"]
    await a.request("ready", race=rid)
    await a.wait("start")
    return rid


def test_the_private_redis_server_requires_its_password(tmp_path) -> None:
    """Any local user can reach 127.0.0.1: the private redis-server answers only with the
    password of its data folder (DATA/redis.pass, owner-only), never shown in `ps`."""
    import stat

    import redis as redis_py

    from server.storage.data_folder import private_password
    from server.storage.embedded_redis import EmbeddedRedis

    data = tmp_path / "data"
    password = private_password(data)
    assert private_password(data) == password  # one per folder
    assert stat.S_IMODE(os.stat(data / "redis.pass").st_mode) == 0o600
    proc = EmbeddedRedis(data, appendonly=False, password=password).start()
    try:
        with redis_py.Redis(host="127.0.0.1", port=proc.port) as anyone:
            with pytest.raises(redis_py.exceptions.AuthenticationError):
                anyone.set("k", "v")
        with redis_py.Redis.from_url(proc.url) as owner:
            assert owner.set("k", "v")
        assert proc.proc is not None
        cmdline = (Path(f"/proc/{proc.proc.pid}/cmdline")).read_bytes()
        assert password.encode() not in cmdline
    finally:
        proc.stop()


def test_the_private_redis_files_are_the_owners_alone(tmp_path, caplog) -> None:
    """The AOF holds every seed in play, the daily secret and password hashes: a data folder
    the server makes is 0700, what redis-server writes in it 0600, and an AOF an older
    server left readable by all is tightened at the next start."""
    import stat

    import redis as redis_py

    from server.storage.data_folder import private_password
    from server.storage.embedded_redis import EmbeddedRedis

    def mode(path: Path) -> int:
        return stat.S_IMODE(os.stat(path).st_mode)

    data = tmp_path / "new" / "data"
    proc = EmbeddedRedis(data, password=private_password(data)).start()
    try:
        with redis_py.Redis.from_url(proc.url) as owner:
            owner.set("seed", "secret")
    finally:
        proc.stop()
    assert mode(data) == 0o700
    written = [p for p in data.rglob("*") if p.is_file() and p.name.endswith(".aof")]
    assert written, sorted(data.rglob("*"))
    assert all(mode(p) == 0o600 for p in written), [(p, oct(mode(p))) for p in written]

    old = tmp_path / "old"
    old.mkdir(mode=0o755)
    (old / "appendonly.aof").write_bytes(b"")
    (old / "redis.pass").write_text("a-password-left-readable\n")
    (old / "redis-auth.conf").write_text("requirepass a-password-left-readable\n")
    for name in ("appendonly.aof", "redis.pass", "redis-auth.conf"):
        os.chmod(old / name, 0o644)
    with caplog.at_level("WARNING", logger="solrace.redis"):
        EmbeddedRedis(old, password=private_password(old)).start().stop()
    for name in ("appendonly.aof", "redis.pass", "redis-auth.conf"):  # the password's files too
        assert mode(old / name) == 0o600, name
    assert mode(old) == 0o755  # an operator's folder keeps its mode; its files are tightened
    assert "took group and other access off" in caplog.text


def test_a_data_folder_that_cannot_be_made_is_named_in_one_line(tmp_path: Path) -> None:
    from server.storage.data_folder import DataFolderError, private_folder

    a_file = tmp_path / "data"
    a_file.write_text("")
    for data, why in [
        (Path("/proc/solrace-data"), "No such file or directory"),
        (a_file, "it is a file, not a folder"),
        (a_file / "inside", "Not a directory"),
    ]:
        with pytest.raises(DataFolderError) as e:
            private_folder(data)
        assert str(e.value) == f"cannot use {data} as the data folder ({why}): pick another --data"
