"""A closed day's leaderboard on the daily screen tells the command that checks it,
`solrace verify --daily GAME --date DATE`: it named no server, so for a player on another
server than the default one it checked the default server's day. Now with `--url` unless the
server is the default one; and `solrace verify --daily` without `--url` asks the default server
(it refused: "give a replay file, or --url with --race or --daily"), as `--race` does."""

from __future__ import annotations

import argparse

import pytest

from client import cli
from client.cli import verify
from client.tui.daily_screen import DailyScreen
from client.tui.daily_text import leaderboard_text
from client.tui.menu import MenuScreen
from client.tui.net import connector
from client.tui.play_app import PlayApp

from .helpers import click_shown, until

CLOSED = {
    "game": "racing-aces",
    "date": "2025-03-14",
    "status": "closed",
    "final": True,
    "count": 0,
    "top": [],
    "me": None,
}


def closed_line(server_url: str | None) -> str:
    return leaderboard_text(CLOSED, "p1", server_url).plain.splitlines()[-1]


def test_the_closed_days_command_names_the_server() -> None:
    other = "ws://solrace.example:9000/ws"
    assert closed_line(other) == (
        f"the day is closed: solrace verify --daily racing-aces --date 2025-03-14 --url {other} "
        "re-plays it from the revealed seed"
    )
    # The default server is the command's own default: no --url.
    assert closed_line(cli.DEFAULT_URL) == (
        "the day is closed: solrace verify --daily racing-aces --date 2025-03-14 "
        "re-plays it from the revealed seed"
    )
    # A server not known: where its URL goes, to fill in.
    assert "--date 2025-03-14 --url ws://HOST:PORT/ws re-plays" in closed_line(None)


async def test_the_daily_screen_knows_the_menus_server(make_server, tmp_path) -> None:
    server = await make_server()
    url = server.ws_url
    app = PlayApp(connector(url, "ada", str(tmp_path / "token")), server_url=url)
    async with app.run_test(size=(130, 45)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, MenuScreen) and app.session, what="the menu")
        await click_shown(pilot, "#daily")
        daily = await until(pilot, lambda: isinstance(app.screen, DailyScreen) and app.screen, what="daily")
        assert daily.server_url == url


def test_verify_daily_without_url_asks_the_default_server(monkeypatch, capsys) -> None:
    monkeypatch.setattr(cli, "DEFAULT_URL", "ws://127.0.0.1:1/ws")  # nothing listens there
    parser = argparse.ArgumentParser()
    verify.add_arguments(parser)
    args = parser.parse_args(["--daily", "racing-aces", "--date", "2025-03-14"])
    assert verify.run(args) == 2
    said = capsys.readouterr().err.strip()
    assert (
        said == "solrace verify: cannot fetch the replay: no server answered at 127.0.0.1:1 — is it running?"
    )


@pytest.mark.parametrize("argv", [["--daily", "racing-aces"], ["--date", "2025-03-14"]])
def test_verify_daily_still_needs_its_date(argv: list[str], capsys) -> None:
    parser = argparse.ArgumentParser()
    verify.add_arguments(parser)
    assert verify.run(parser.parse_args(argv)) == 2
    assert "solrace verify: give" in capsys.readouterr().err
