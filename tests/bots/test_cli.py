"""`solrace bot` as a user runs it: offline --stats, and online against a
`solrace serve` subprocess (the `serve_process` fixture of tests/conftest.py)."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest

import client
from client.cli import main
from protocol import messages as m

ROOT = Path(__file__).resolve().parents[2]


def test_stats_prints_one_row_per_strategy(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(
            [
                "bot",
                "--stats",
                "racing-aces",
                "--deals",
                "2",
                "--strategy",
                "all",
                "--nodes",
                "50",
                "--jobs",
                "1",
                "--seed-prefix",
                "cli",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out.splitlines()
    rows = [line.split() for line in out if line.startswith("racing-aces")]
    assert [r[1] for r in rows] == ["random", "greedy", "search"]
    assert all(r[2] == "2" and r[6] == "156" for r in rows)


def test_stats_are_reproducible(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["bot", "--stats", "fours-up", "--deals", "3", "--strategy", "greedy", "--seed-prefix", "x"]
    main([*args, "--jobs", "1"])
    first = capsys.readouterr().out.splitlines()[-1].split()
    main([*args, "--jobs", "2"])
    second = capsys.readouterr().out.splitlines()[-1].split()
    assert first[:9] == second[:9]  # all but the timing


@pytest.mark.timeout(60)
def test_bots_race_through_the_command(serve_process) -> None:
    url, _proc = serve_process()
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
            "--game",
            "rouge-et-noir",
            "--strategy",
            "greedy",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=50,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("race ") and "2 greedy bot(s) playing rouge-et-noir" in lines[0]
    # Two greedy bots on one deal play the same game, so they may tie for rank 1.
    ranks = [line.split()[:2] for line in lines[1:]]
    assert len(ranks) == 2 and all(r[0] == "rank" and r[1] in ("1", "2") for r in ranks), lines


def test_bots_play_an_arena_through_the_command(serve_process) -> None:
    url, _proc = serve_process("--arena-create", "1", "--arena-schedule", "off", "--arena-tick-ms", "200")

    async def create() -> None:
        async with client.connect(url, name="host") as c:
            await c.request(
                m.ArenaCreate(arena="cli-arena", game="racing-aces", duration_ms=20_000, time_limit_s=30)
            )

    asyncio.run(create())
    done = subprocess.run(
        [sys.executable, "-m", "client.cli", "bot", "--url", url, "--count", "2", "--arena", "cli-arena"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert any(line.startswith("arena cli-arena: race r") for line in lines), lines
    rows = [line.split() for line in lines if line.startswith("bot-")]
    assert len(rows) == 2 and all(r[1] == "races" and int(r[2]) >= 1 for r in rows), lines
