"""The private redis-server under `solrace serve`: a full disk, and a kill -9.

`test_full_disk_loses_no_ack` makes a 20 MiB ext4 filesystem of its own (a
loop device, mounted as root in the test's temp folder, unmounted at the end,
pass or fail), fills it but for a little room, and races two players on it
with the default `--redis-fsync always` until the disk is full: redis-server
cannot write its AOF, exits without replying, and the supervisor keeps
trying. Then space is freed: the supervisor brings it back, the players go
on, and the server is stopped and started again. Every acknowledged move is
stored, at its place, and no move number was acknowledged with two moves.
If the filesystem cannot be made, the test fails and says why.

`test_private_redis_killed_is_restarted`: kill -9 of the private
redis-server mid-race; it is restarted, `/healthz` goes 503 then 200, the
race goes on with every acknowledged move kept, and the outage costs a few
log lines, not one per request.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shutil
import signal
import subprocess
import threading
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from private_redis import private_redis_url
from scale_play import EndlessStrategy, Played, assert_acked_kept, play, seated_race, stored_moves
from scale_procs import Server
from waiting import until

import client

DISK_MIB = 20
ROOM = 256 * 1024  # bytes left free before the race: a few hundred moves


def _run(*args: str) -> None:
    done = subprocess.run(args, capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(args)}: {(done.stderr or done.stdout).strip()}")


@pytest.fixture
def small_disk(tmp_path: Path):
    """A 20 MiB ext4 filesystem on a loop device, mounted at tmp_path/disk; unmounted afterwards."""
    image = tmp_path / "disk.img"
    mount = tmp_path / "disk"
    mount.mkdir()
    with open(image, "wb") as f:
        f.truncate(DISK_MIB * 1024 * 1024)
    try:
        _run("mkfs.ext4", "-q", "-F", str(image))
        _run("mount", "-o", "loop", str(image), str(mount))
    except (OSError, RuntimeError, subprocess.TimeoutExpired) as exc:
        pytest.fail(
            f"cannot make a {DISK_MIB} MiB filesystem for the test (needs root and a loop device): {exc}"
        )
    try:
        yield mount
    finally:
        done = subprocess.run(["umount", str(mount)], capture_output=True, timeout=60)
        if done.returncode != 0:  # something still holds it (a process the test left): detach it
            subprocess.run(["umount", "-l", str(mount)], capture_output=True, timeout=60)


def _fill(disk: Path, leave: int) -> Path:
    """A file taking all the free space of `disk`, then shortened to leave `leave` bytes free."""
    filler = disk / "filler"
    size = 0
    with open(filler, "wb") as f:
        for step in (1 << 20, 1 << 12):  # big steps, then blocks, until nothing more fits
            with contextlib.suppress(OSError):
                while True:
                    os.posix_fallocate(f.fileno(), size, step)
                    size += step
        f.truncate(size - leave)
        os.fsync(f.fileno())
    return filler


def _healthz(server: Server) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(server.http_url + "healthz", timeout=5) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()
    except OSError as e:
        return 0, str(e)


async def _health_is(server: Server, status: int) -> bool:
    return (await asyncio.to_thread(_healthz, server))[0] == status


def _reason_if_503(server: Server) -> Callable[[], Awaitable[str | None]]:
    async def reason() -> str | None:
        status, text = await asyncio.to_thread(_healthz, server)
        return text if status == 503 else None

    return reason


def _redis_url(server: Server) -> str:
    url = private_redis_url(server.log_text())
    assert url, server.log_text()
    return url


async def _play_until(c: client.Client, rid: str, played: Played, stop: asyncio.Event) -> None:
    """Random legal moves as fast as acks come; errors (the disk is full) are noted and survived."""
    strategy = EndlessStrategy(seed=hash(c.player) & 0xFFFF)
    board = c.board(rid)
    while not stop.is_set():
        mv = strategy.choose(board.view)
        assert mv is not None
        try:
            ack = await c.move(rid, mv, timeout=30)
        except client.ServerError as exc:
            played.errors.append(exc.code)
            await asyncio.sleep(0.05)
            with contextlib.suppress(client.ServerError, TimeoutError):
                await c.resync(rid)
            continue
        played.acks.append((ack.n, ack.move))


def _one_move_per_n(acks: list[tuple[int, str]]) -> None:
    seen: dict[int, str] = {}
    for n, mv in acks:
        assert seen.setdefault(n, mv) == mv, f"n={n} acknowledged as {seen[n]!r} and as {mv!r}"


def _outage_lines(log: str) -> list[str]:
    return [line for line in log.splitlines() if " WARNING " in line or " ERROR " in line]


def _line_kind(line: str) -> str:
    """Which component said what: the logger and the message up to its details, numbers blanked
    ("solrace.redis: Redis available again", "solrace.bots: bot requests")."""
    logger, _, message = line.partition(" WARNING " if " WARNING " in line else " ERROR ")[2].partition(": ")
    return logger + ": " + re.sub(r"\d+(\.\d+)?", "N", re.split(r"[:(]", message)[0]).strip()


async def _until_disk_full(server: Server, players: list[client.Client], rid: str, results: list[Played]):
    """Race until redis-server cannot persist any more; then /healthz says 503 and moves are refused."""
    stop = asyncio.Event()
    start = [len(r.acks) for r in results]
    errors = [r.errors.count("internal") for r in results]
    tasks = [asyncio.create_task(_play_until(c, rid, r, stop)) for c, r in zip(players, results)]
    try:
        await until(lambda: _health_is(server, 503), timeout=300, interval=0.2, what="the disk full")
        await until(
            lambda: all(r.errors.count("internal") >= k + 3 for r, k in zip(results, errors)),
            what="moves refused",
        )
        # Not one fixed reading: with fsync always, redis-server exits at its failed write and
        # its supervisor starts it again, so /healthz can read 200 in the moment between its
        # restart and its next failed write (seen on a loaded machine). Its 503 says why.
        reason = await until(_reason_if_503(server), what="/healthz 503 with its reason")
        assert "redis" in reason, reason
    finally:
        stop.set()
        await asyncio.wait_for(asyncio.gather(*tasks), 60)
    assert all(len(r.acks) >= k + 50 for r, k in zip(results, start)), [len(r.acks) for r in results]
    assert server.alive()


async def _check_stored(
    server: Server, players: list[client.Client], rid: str, results: list[Played]
) -> None:
    url = _redis_url(server)
    for c, r in zip(players, results):
        n, log = await stored_moves(url, rid, c.player)
        assert_acked_kept(r.acks, n, log)
        _one_move_per_n(r.acks)


async def test_full_disk_loses_no_ack(procs, tmp_path, small_disk):
    data = small_disk / "data"
    filler = _fill(small_disk, ROOM)
    server = Server(procs, "", tmp_path, "--data", str(data))  # the default: --redis-fsync always
    players = [await client.connect(server.url, name=f"p{i}") for i in range(2)]
    results = [Played() for _ in players]
    try:
        rid = await seated_race(players, "fours-up")
        await _until_disk_full(server, players, rid, results)
        tokens = [c.token for c in players]
    finally:
        for c in players:
            await c.close()
    log_text = server.log_text()
    assert "Traceback" not in log_text, log_text

    # stopped while the disk is full, started again once there is space: nothing acknowledged is missing
    server.term()
    assert await asyncio.to_thread(server.proc.wait, 60) == 0
    filler.unlink()
    server = Server(procs, "", tmp_path, "--data", str(data))
    players = [await client.connect(server.url, name=f"p{i}", token=t) for i, t in enumerate(tokens)]
    try:
        await _check_stored(server, players, rid, results)
        for c, r in zip(players, results):
            await c.resync(rid)
            await play(c, rid, 10, r, strategy=EndlessStrategy(seed=1))

        # full again, and space freed while the server runs: the supervisor brings redis-server back
        before = server.log_text()
        filler = _fill(small_disk, ROOM)
        await _until_disk_full(server, players, rid, results)

        async def waits_for_space() -> bool:
            return "waiting for disk space" in (await _reason_if_503(server)() or "")

        await until(waits_for_space, what="/healthz: waiting for disk space")
        filler.unlink()
        await until(lambda: _health_is(server, 200), what="/healthz 200 once there is space")
        for c, r in zip(players, results):
            await c.resync(rid)
            await play(c, rid, 10, r, strategy=EndlessStrategy(seed=2))
        await _check_stored(server, players, rid, results)
    finally:
        for c in players:
            await c.close()
    during = server.log_text()[len(before) :]
    assert "Traceback" not in during, during
    # Each component says so once per outage (and maybe once more when it is over), never once
    # per request or retry. No restart is tried until the disk has room again (a restart on a
    # nearly full disk took the probe's write and failed at the next moves: the outage ended and
    # began again), so the outage is one, and the wait for space is said once.
    outages = len(re.findall(r"private redis-server .*; restarting it", during))
    assert outages == 1, during
    assert len(re.findall(r"bytes free: the private redis-server is started again once", during)) == 1, during
    kinds = Counter(_line_kind(line) for line in _outage_lines(during))
    # A string message, so that pytest prints the whole log (a tuple's repr is cut at ~240 characters).
    assert all(n <= outages for n in kinds.values()), f"{outages} outage(s), {dict(kinds)}\n{during}"


def _redis_child(server: Server) -> int:
    out = subprocess.run(
        ["pgrep", "-P", str(server.proc.pid), "redis-server"], capture_output=True, text=True
    )
    pids = out.stdout.split()
    assert len(pids) == 1, out
    return int(pids[0])


async def test_private_redis_killed_is_restarted(procs, tmp_path):
    server = Server(procs, "", tmp_path, "--data", str(tmp_path / "data"))
    players = [await client.connect(server.url, name=f"p{i}") for i in range(2)]
    try:
        rid = await seated_race(players, "fours-up")
        results = [Played() for _ in players]
        stop = asyncio.Event()
        tasks = [asyncio.create_task(_play_until(c, rid, r, stop)) for c, r in zip(players, results)]
        await until(lambda: all(len(r.acks) >= 20 for r in results), what="20 moves each")
        assert await _health_is(server, 200)
        before = server.log_text()
        # /healthz polled back to back from a thread from before the kill, so that the short outage
        # (~0.2 s) is seen even while this event loop is busy with the players
        seen: list[int] = []
        done = threading.Event()

        def poll() -> None:
            while not done.is_set() and not (503 in seen and seen[-1] == 200):
                seen.append(_healthz(server)[0])

        poller = threading.Thread(target=poll, daemon=True)
        poller.start()
        os.kill(_redis_child(server), signal.SIGKILL)
        try:
            await until(lambda: 503 in seen and seen[-1] == 200, what="/healthz 503, then 200 again")
        finally:
            done.set()
            await asyncio.to_thread(poller.join, 10)
        counts = [len(r.acks) for r in results]
        await until(lambda: all(len(r.acks) >= k + 20 for r, k in zip(results, counts)), what="moves again")
        stop.set()
        await asyncio.wait_for(asyncio.gather(*tasks), 60)
        url = _redis_url(server)
        for c, r in zip(players, results):
            n, log = await stored_moves(url, rid, c.player)
            assert_acked_kept(r.acks, n, log)
            _one_move_per_n(r.acks)
    finally:
        for c in players:
            await c.close()
    during = server.log_text()[len(before) :]
    assert "Traceback" not in during, during
    assert 2 <= len(during.splitlines()) <= 12, during  # ten in a run: see docs/operations.md §10
    assert "private redis-server killed by signal 9" in during and "is back" in during, during
    assert server.alive()


def test_disk_tools_exist() -> None:
    """The full-disk test needs these; a missing one fails it with its name (not a skip)."""
    for tool in ("mkfs.ext4", "mount", "umount", "pgrep"):
        assert shutil.which(tool), f"{tool} is not installed"


async def test_full_disk_with_everysec_is_reported(procs, tmp_path, small_disk):
    """With `--redis-fsync everysec` redis-server stays up on a full disk but refuses writes:
    /healthz says so (503), moves get `internal`, the log stays short. (What it can lose: §6.)"""
    _fill(small_disk, ROOM)
    server = Server(procs, "", tmp_path, "--data", str(small_disk / "data"), "--redis-fsync", "everysec")
    players = [await client.connect(server.url, name=f"p{i}") for i in range(2)]
    results = [Played() for _ in players]
    try:
        rid = await seated_race(players, "fours-up")
        await _until_disk_full(server, players, rid, results)
        status, reason = await asyncio.to_thread(_healthz, server)
        assert status == 503 and "refuses writes" in reason, reason
    finally:
        for c in players:
            await c.close()
    log_text = server.log_text()
    assert "Traceback" not in log_text and "private redis-server exited" not in log_text, log_text
    assert len(_outage_lines(log_text)) <= 3, log_text
