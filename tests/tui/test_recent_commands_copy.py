"""The "Your races" commands at 80x24 can be copied: each starts a row of its own, with no
label before it, and one too long for the row is broken between its arguments only, each row
but its last ending in a `\\` continuation that a shell takes as one command. They wrapped
mid-argument ("--race" on one row, the id on the next), so a copy broke them; and `--url` is
left out when it is the commands' default."""

from __future__ import annotations

import subprocess
from typing import Any

from textual.app import App

from client.tui.recent_screen import RecentScreen

from .helpers import until
from .test_recent_fits import RACES, Account

URL = "ws://games.example.org:18765/ws"
TOKEN = "/home/ada/.config/solrace/the-other-token"
#: a private race of yours (its commands ask as you, with this terminal's token file)
PRIVATE = {**RACES[2], "race": "r09ebbd19b4b3339e", "private": True}


class Private(Account):
    token_file = TOKEN

    async def request(self, t: str, **fields: Any) -> dict[str, Any]:
        return {"t": "recent", "races": [PRIVATE]}


def shell_args(rows: list[str]) -> list[str]:
    """The arguments a shell reads from these rows, pasted as they are."""
    script = "set -- " + "\n".join(rows) + '\nprintf "%s\\n" "$@"'
    out = subprocess.run(["sh", "-c", script], capture_output=True, text=True, check=True).stdout
    return out.splitlines()


def command_rows(rows: list[str], verb: str) -> list[str]:
    """The rows of the command `solrace VERB`: the one it starts, and those its `\\` go on to."""
    start = next((i for i, row in enumerate(rows) if row.startswith(f"solrace {verb} ")), None)
    assert start is not None, f"no row starts with solrace {verb}: {rows}"
    end = start
    while rows[end].endswith("\\"):
        end += 1
    return rows[start : end + 1]


async def show(session: Account, url: str) -> tuple[list[str], int]:
    app: App[None] = App()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = RecentScreen(session, url)  # type: ignore[arg-type]
        app.push_screen(screen)
        await until(pilot, lambda: screen.races, what="the list")
        detail = screen.query_one("#recent-detail")
        await until(pilot, lambda: "solrace analyze" in str(detail.render()), what="the details")
        await until(pilot, lambda: detail.size.width > 0, what="laid out")
        await pilot.pause()
        rows = [detail.render_line(y).text.rstrip() for y in range(detail.size.height)]
        return [row.strip() for row in rows], detail.size.width


async def test_the_commands_are_whole_for_a_shell_at_80x24(monkeypatch) -> None:
    monkeypatch.setattr("client.tui.recent_screen.token_path", lambda _: "/default/token")
    rows, width = await show(Private(), URL)
    for verb in ("replay", "verify", "analyze"):
        mine = command_rows(rows, verb)
        assert all(len(row) <= width for row in mine)
        expected = ["solrace", verb, "--url", URL, "--race", PRIVATE["race"], "--token-file", TOKEN]
        assert shell_args(mine) == expected, mine


async def test_the_default_server_is_not_named() -> None:
    rows, _ = await show(Account(), "ws://127.0.0.1:8765/ws")
    race = RACES[0]["race"]
    for verb in ("replay", "verify", "analyze"):
        assert f"solrace {verb} --race {race}" in rows  # whole, on a row of its own
