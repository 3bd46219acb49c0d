"""`solrace bot --race` joins a private race: from its link (its server and its invite, as
`solrace play --join` reads one) or with --invite. The link was sent whole as the race id
("bad-message: `race`: Expected `str` of length <= 64"), and a private race's id alone was
refused ("private-race") with no way to give its invite."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from cli_procs import started_bot

import client
from client.tui.links import make_link

ROOT = Path(__file__).resolve().parents[2]


def start_bot(*flags: str) -> subprocess.Popen[str]:
    return started_bot("--strategy", "random", *flags)


async def joined(bot: subprocess.Popen[str]) -> str:
    """The bot's first line (its race, once joined), or what it said when it failed."""
    assert bot.stdout is not None and bot.stderr is not None
    line = await asyncio.wait_for(asyncio.to_thread(bot.stdout.readline), 60)
    if not line:
        return "failed: " + await asyncio.to_thread(bot.stderr.read)
    return line.strip()


@pytest.mark.timeout(120)
@pytest.mark.parametrize("how", ["link", "invite"])
async def test_bot_joins_a_private_race(serve_process, how: str) -> None:
    url, _proc = serve_process()
    async with client.connect(url, name="host") as host:
        snap = await host.create("fours-up", seats=2, time_limit_s=60, private=True)
        assert snap.invite
        if how == "link":  # no --url: the link's server
            bot = start_bot("--race", make_link(url, snap.race, snap.invite))
        else:
            bot = start_bot("--url", url, "--race", snap.race, "--invite", snap.invite)
        try:
            assert await joined(bot) == f"race {snap.race}: 1 random bot(s) playing fours-up"
            seated = await host.resync(snap.race)
            assert sorted(p.name for p in seated.race.players) == ["bot-1", "host"]
        finally:
            os.killpg(bot.pid, signal.SIGKILL)
            bot.wait(10)


@pytest.mark.parametrize(
    ("flags", "goes_with"),
    [
        (["--invite", "x"], "argument --invite: goes with --race"),
        # --berserk without --arena played an ordinary race without a word
        (["--berserk", "--game", "fours-up", "--quick"], "argument --berserk: goes with --arena"),
    ],
)
def test_a_flag_without_the_one_it_goes_with_is_refused(flags: list[str], goes_with: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "client.cli", "bot", *flags],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1] == f"solrace bot: error: {goes_with}"
