"""`solrace bot`: progress of --stats, and --race naming the race's own game."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from cli_procs import started_bot

import client
from client.cli import main

ROOT = Path(__file__).resolve().parents[2]


def test_stats_reports_progress_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["bot", "--stats", "fours-up", "--deals", "3", "--jobs", "1", "--strategy", "random"]
    assert main(args) == 0
    out, err = capsys.readouterr()
    # The first result is reported at once, the last always; the table stays on stdout.
    assert "fours-up random: 1/3 deals" in err and "fours-up random: 3/3 deals" in err, err
    assert "deals," not in out
    assert [line.split()[:3] for line in out.splitlines() if line.startswith("fours-up")] == [
        ["fours-up", "random", "3"]
    ]


@pytest.mark.timeout(90)
async def test_bot_joining_a_race_announces_its_game(serve_process) -> None:
    # --game names another game: the race's own is played and announced, with a note.
    url, _proc = serve_process()
    async with client.connect(url, name="host") as host:
        snap = await host.create("rouge-et-noir", seats=2, time_limit_s=60)
        bot = started_bot("--url", url, "--race", snap.race, "--game", "fours-up")
        try:
            assert bot.stdout is not None
            line = await _readline(bot)
            assert line.strip() == f"race {snap.race}: 1 search bot(s) playing rouge-et-noir", line
        finally:
            os.killpg(bot.pid, signal.SIGKILL)
            bot.wait(10)
        assert bot.stderr is not None
        assert f"note: race {snap.race} is rouge-et-noir, not fours-up" in bot.stderr.read()


@pytest.mark.timeout(90)
async def test_bot_waiting_in_the_queue_says_so(serve_process) -> None:
    # It said nothing until a rival came: a player could not tell it was waiting, nor for what.
    url, _proc = serve_process()
    bot = subprocess.Popen(
        [sys.executable, "-m", "client.cli", "bot", "--url", url, "--quick", "--game", "fours-up"],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )
    try:
        line = await _readline(bot)
        assert "waiting for rivals in the fours-up quick-match queue" in line, line
        assert f"solrace play --url {url} --game fours-up --quick" in line, line
    finally:
        os.killpg(bot.pid, signal.SIGKILL)
        bot.wait(10)


async def _readline(proc: subprocess.Popen[str]) -> str:
    import asyncio

    assert proc.stdout is not None
    return await asyncio.wait_for(asyncio.to_thread(proc.stdout.readline), 60)
