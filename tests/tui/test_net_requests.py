"""Every request the terminal apps send has a path through the online adapter.

The apps talk to a server through `net.NetSession.request(t, **fields)`, which maps each
type to a client-library method; a type it does not map fails at once, offline or not, with
"the client does not send ..." (how the online `hint` was broken while the offline one
worked). This scans the apps' sources for the types they request and sends each through a
NetSession over a recording stand-in for the library's `Client`: every one must reach a
library method. The real round trips are in test_e2e.py, test_arena_tui.py,
test_hint_online.py and test_play_race_flag.py.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

from client.tui.net import NetSession
from protocol import messages as m

TUI = Path(__file__).resolve().parents[2] / "client" / "tui"

# `race_command` sends the typed word itself for these (command_line.CommandLine.run).
TYPED_WORDS = {"start", "leave", "finish"}


def requested_types() -> set[str]:
    """The string literals passed as the type of a `request(...)` call in client/tui."""
    found: set[str] = set()
    for path in TUI.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.Call) and node.args):
                continue
            name = getattr(node.func, "attr", None) or getattr(node.func, "id", None)
            first = node.args[0]
            if name in ("request", "_arena_request") and isinstance(first, ast.Constant):
                if isinstance(first.value, str):
                    found.add(first.value)
    return found


class _Recording:
    """The library client's surface as NetSession uses it: records the methods called."""

    player, name, clock_offset_ms = "p1", "ada", None
    welcome = m.Welcome(v=1, player="p1", name="ada", token="t", races=[], time=0, limits={})

    def __init__(self) -> None:
        self.called: list[str] = []

    def __getattr__(self, method: str) -> Any:
        async def call(*args: Any, **kwargs: Any) -> dict[str, Any]:
            self.called.append(method)
            return {"t": "ok"}

        return call


def test_the_scan_finds_the_apps_requests() -> None:
    found = requested_types()
    # A few of each app, so that a scan finding nothing cannot pass the test below.
    assert {"hint", "move", "ready", "quick", "spectate", "races", "arena_join", "arena_berserk"} <= found


@pytest.mark.parametrize("t", sorted(requested_types() | TYPED_WORDS))
async def test_every_request_of_the_apps_reaches_a_library_method(t: str) -> None:
    client = _Recording()
    session = NetSession(client)  # type: ignore[arg-type]
    fields = {"race": "r1", "game": "fours-up", "arena": "a1", "move": "draw", "n": 0}
    reply = await session.request(t, **fields)
    assert reply == {"t": "ok"}
    assert client.called, f"{t!r} reached no library method"
