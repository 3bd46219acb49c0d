"""`solrace arena` says what berserk does where a player first meets the word: under the
header of an arena that allows it, before any pairing (it was said only once paired, in the
status line's offer). An arena without berserk neither explains it nor offers its key."""

from __future__ import annotations

import pytest

from client.tui.arena_app import ArenaApp
from client.tui.net import connector
from protocol import messages as m

from .helpers import footer_keys, rendered, until
from .test_arena_tui import LONG, SERVER, create_long

#: docs/arenas.md §2: the race clock halved, one extra point for a win.
RULE = "berserk (b, before your race starts): half your clock, +1 point if you win it"


def lines(widget) -> list[str]:
    """The widget's rows as drawn."""
    return [widget.render_line(y).text.strip() for y in range(widget.size.height)]


@pytest.mark.timeout(120)
async def test_berserk_is_explained_in_the_arena_before_any_pairing(make_server, tmp_path):
    from client.library.connection import connect

    server = await make_server(**SERVER)
    async with connect(server.ws_url, name="host") as host:
        await create_long(host, berserk=True)
        await host.request(
            m.ArenaCreate(arena="plain", game="fours-up", duration_ms=3_600_000, berserk=False)
        )
        app = ArenaApp(
            connector(server.ws_url, "ada", str(tmp_path / "token")), arena=LONG["id"], refresh_s=60
        )
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: app.arena_id == LONG["id"], what="opened")
            info = app.query_one("#arena-info")
            await until(pilot, lambda: RULE in lines(info), what="the rule drawn, whole on a row")
            assert "b: berserk" in rendered(app.query_one("#status"))
            assert app.paired is None  # said before any race is paired
        plain = ArenaApp(
            connector(server.ws_url, "bob", str(tmp_path / "token2")), arena="plain", refresh_s=60
        )
        async with plain.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: plain.arena_id == "plain", what="opened")
            await until(pilot, lambda: "join" in footer_keys(plain), what="the arena's keys")
            info = plain.query_one("#arena-info")
            assert "berserk" not in rendered(info)
            assert "berserk" not in rendered(plain.query_one("#status"))  # no key that cannot act
            assert "berserk" not in footer_keys(plain)
