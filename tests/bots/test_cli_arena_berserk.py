"""`solrace bot --arena ID --berserk`: the bots berserk their arena races."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import redis.asyncio as aioredis

import client
from protocol import messages as m
from server.arena import ArenaStore

ROOT = Path(__file__).resolve().parents[2]


def test_bots_berserk_their_arena_races(serve_process, fast_settings) -> None:
    # a countdown long enough for the bots' berserk to come before the start
    url, _proc = serve_process(
        "--arena-create", "1", "--arena-schedule", "off", "--arena-tick-ms", "200", "--countdown-ms", "1500"
    )

    # The arena outlasts a loaded machine's start of the bot command (10 s was once too short:
    # `arena-over` before the bots had joined).
    async def create() -> None:
        async with client.connect(url, name="host") as c:
            await c.request(
                m.ArenaCreate(arena="cli-berserk", game="racing-aces", duration_ms=20_000, time_limit_s=30)
            )

    asyncio.run(create())
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "client.cli",
            "bot",
            "--url",
            url,
            "--count",
            "2",
            "--arena",
            "cli-berserk",
            "--berserk",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr

    async def results() -> dict[str, dict]:
        r = aioredis.from_url(fast_settings.redis)
        try:
            return await ArenaStore(r).results("cli-berserk")
        finally:
            await r.aclose()

    applied = asyncio.run(results())
    # (a race caught up after a missed notice may have started already: no berserk there)
    assert any(len(res["berserk"]) == 2 for res in applied.values()), applied
    assert all(set(res["berserk"]) <= set(res["players"]) for res in applied.values())
