"""`solrace arena` at 80 columns against a real server (in this process): the header fits
in whole phrases, the status line wraps instead of cutting, and the footer shows only the
keys that act in the view at hand."""

from __future__ import annotations

import pytest

from client.tui.arena_app import ArenaApp
from client.tui.arena_view import BERSERK_RULE, arena_header
from client.tui.net import connector

from .helpers import footer_keys, rendered, until
from .test_arena_tui import LONG, T, create_long


def lines(widget) -> list[str]:
    """The widget's rows as drawn."""
    return [widget.render_line(y).text.strip() for y in range(widget.size.height)]


def test_the_header_fits_the_width_in_whole_phrases():
    data = {"arena": {**LONG, "seats": 4, "time_limit_s": 300, "berserk": True}, "joined": True}
    head = arena_header(data, T + 60_000, 78).splitlines()  # 80 columns, less the padding
    assert all(len(line) <= 78 for line in head)
    assert head == [
        f"{LONG['name']} — Double Aces and Kings",
        "4 seats · 5 min races · berserk allowed · 59:00 left",
        # waiting for a free rival: the words take the row, the id the next
        "you are in: waiting for another player to be free, then paired within seconds",
        f"id {LONG['id']}",
    ]
    # narrower, the name gives way, not the game
    first = arena_header(data, T + 60_000, 50).splitlines()[0]
    assert len(first) == 50 and first.endswith("… — Double Aces and Kings")
    assert LONG["name"].startswith(first.partition("…")[0])


@pytest.mark.timeout(120)
async def test_an_arena_at_80_columns(make_server, tmp_path):
    from client.library.connection import connect

    server = await make_server(
        arena_create=1, arena_schedule="off", arena_tick_ms=100, arena_update_ms=100, countdown_ms=600_000
    )
    async with connect(server.ws_url, name="host") as host:
        await create_long(host, berserk=True)
        app = ArenaApp(connector(server.ws_url, "ada", str(tmp_path / "token")), refresh_s=60)
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: app.arenas, what="listed")
            await until(pilot, lambda: "refresh" in footer_keys(app), what="the footer")
            keys = footer_keys(app)
            assert not {"back", "join", "withdraw", "berserk"} & set(keys)
            await pilot.press("enter")
            await until(pilot, lambda: app.arena_id == LONG["id"], what="opened")
            await until(pilot, lambda: "join" in footer_keys(app), what="the arena's keys")
            keys = footer_keys(app)
            assert keys["back"] and keys["join"] and not keys["withdraw"] and not keys["berserk"]
            # the header: whole phrases on their own rows, the id on one row
            head = lines(app.query_one("#arena-info"))
            assert head[0].endswith("— Double Aces and Kings")
            assert any(row.endswith("berserk allowed · " + row.rpartition(" · ")[2]) for row in head)
            assert head[2].endswith(f"not joined · id {LONG['id']}")
            assert head[3] == BERSERK_RULE  # what berserk does, whole, under the header
            await pilot.press("j")
            await until(pilot, lambda: app.data.get("joined"), what="joined")
            await until(pilot, lambda: footer_keys(app).get("withdraw"), what="withdraw enabled")
            assert footer_keys(app)["join"] is False
            await host.arena_join(LONG["id"])
            status = app.query_one("#status")
            await until(pilot, lambda: "paired: race" in rendered(status), what="paired")

            # the command that plays it elsewhere whole on a row (it wrapped after "--race")
            def elsewhere() -> bool:
                return f"or in another terminal: solrace play --race {app.paired}" in lines(status)

            # the status wraps: the berserk offer at its end is on the screen, and the command's
            # row under it (waited for too: the status may be drawn with its new text a frame
            # before it is laid out a row taller, with that row cut off)
            await until(
                pilot,
                lambda: "+1 on a win)" in " ".join(lines(status)) and elsewhere(),
                what="the status line wrapped",
            )
            assert app.paired is not None and app.paired in " ".join(lines(status))
            assert elsewhere()
            await until(pilot, lambda: footer_keys(app).get("berserk"), what="berserk enabled")
            await pilot.press("escape")
            await until(pilot, lambda: app.arena_id is None, what="back to the list")
            await until(pilot, lambda: "join" not in footer_keys(app), what="the list's keys")
