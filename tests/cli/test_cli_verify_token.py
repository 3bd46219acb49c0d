"""`solrace verify` / `solrace analyze` with `--token-file`: a private race is replayed by its
players only, so the commands can ask as the player whose token `solrace play` keeps."""

from __future__ import annotations

import argparse

import pytest

from client import library as client
from client.cli import analyze as a
from client.cli import verify as v
from client.cli.replay import fetch_replay

GAME = "fours-up"


def parsed(module, *argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    module.add_arguments(parser)
    return parser.parse_args(list(argv))


async def test_a_private_race_is_verified_as_its_player(server, tmp_path, monkeypatch):
    async with client.connect(server.ws_url, name="ada") as ada:
        snap = await ada.create(GAME, seats=1, private=True)
        await ada.ready(snap.race)
        await ada.wait_for("start", lambda ev: ev.race == snap.race)
        await ada.finish(snap.race)
        await ada.wait_for("end", lambda ev: ev.race == snap.race)
        token = ada.token
    assert token

    # as a new guest (the default): refused, the race is private
    with pytest.raises(v.InputError, match="is private.*add --token-file"):
        await v.fetch(server.ws_url, race=snap.race)

    # --token-file PATH, and --token-file alone (the file `solrace play` keeps)
    mine = tmp_path / "token"
    mine.write_text(token + "\n")
    monkeypatch.setenv("SOLRACE_TOKEN_FILE", str(mine))
    for module in (v, a):
        for argv in (["--token-file", str(mine)], ["--token-file"]):
            args = parsed(module, "--url", server.ws_url, "--race", snap.race, *argv)
            assert v.token_of(args) == token
    doc = await v.fetch(server.ws_url, race=snap.race, token=token)
    assert doc["race"] == snap.race and doc["seed"]
    # asked as ada, ada keeps her name (it was "verifier" afterwards, "replayer" after replay's)
    await fetch_replay(server.ws_url, snap.race, token=token)
    async with client.connect(server.ws_url, token=token) as again:
        assert again.name == "ada"
    # the reply carries the commitment the race published before its start: the seed is checked
    assert doc["commitment"] == snap.commitment
    report = v.verify(doc)
    assert report.confirmed and report.committed, report.text()
    assert "the seed is the one its fingerprint (sha256 of the seed) promised" in report.text()
    # without a commitment the seed is said unchecked, not confirmed as if it were
    bare = v.verify({**doc, "commitment": None})
    assert bare.confirmed and not bare.committed
    assert "the seed itself is unchecked" in bare.text()
    assert v.verify({**doc, "commitment": "0" * 64}).problems

    # without the option: no token; an empty file: said so
    assert v.token_of(parsed(v, "--url", server.ws_url, "--race", snap.race)) is None
    empty = tmp_path / "empty"
    empty.write_text("")
    with pytest.raises(v.InputError, match="no token in"):
        v.token_of(parsed(a, "--token-file", str(empty)))


async def test_a_refusal_is_said_in_words_not_its_code(server):
    """As `solrace replay` says it: it read "the server refused: no-such-race: no such race"."""
    with pytest.raises(v.InputError) as refused:
        await v.fetch(server.ws_url, race="rnosuchrace")
    said = str(refused.value)
    assert said.startswith("There is no race rnosuchrace on this server") and "no-such-race" not in said
