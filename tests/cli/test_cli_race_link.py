"""`solrace verify` and `solrace analyze` take a race's link for `--race`, as `solrace
replay` does: the link names the server (no --url needed). They looked the whole link up as
an id: "There is no race http://… on this server"."""

from __future__ import annotations

import argparse
import asyncio

from client import library as client
from client.cli import analyze as a
from client.cli import verify as v


def parsed(module, *argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    module.add_arguments(parser)
    return parser.parse_args(list(argv))


async def test_verify_and_analyze_take_a_races_link(server, capsys) -> None:
    async with client.connect(server.ws_url, name="ada") as ada:
        snap = await ada.create("fours-up", seats=1)
        await ada.ready(snap.race)
        await ada.wait_for("start", lambda ev: ev.race == snap.race)
        await ada.finish(snap.race)
        await ada.wait_for("end", lambda ev: ev.race == snap.race)
    link = server.ws_url.replace("ws://", "http://").removesuffix("ws") + f"#race={snap.race}"
    assert await asyncio.to_thread(v.run, parsed(v, "--race", link)) == 0
    assert "CONFIRMED" in capsys.readouterr().out
    assert await asyncio.to_thread(a.run, parsed(a, "--race", link, "--nodes", "200")) == 0
    out = capsys.readouterr().out
    assert "Fours Up" in out and "ada" in out


def test_an_id_alone_is_looked_up_on_the_default_server() -> None:
    """As `solrace play` and `watch` connect to the default server when no --url names one (it
    said "with --race give --url ws://HOST:PORT/ws")."""
    from client.cli import DEFAULT_URL
    from client.cli.race_link import race_source

    assert race_source("r1", None) == ([DEFAULT_URL], "r1", None)
    assert race_source("r1", ["ws://h:1/ws"]) == (["ws://h:1/ws"], "r1", None)
    assert race_source("http://h:1/#race=r1&invite=s", None) == (["ws://h:1/ws"], "r1", "s")
