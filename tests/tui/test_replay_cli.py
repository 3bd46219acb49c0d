"""`solrace replay` against a real server (in this process) and a real Redis: a finished race
of two players is fetched, re-played from its revealed seed — every position the one the
server sent its player after that move — and shown in the viewer (Textual's Pilot); a saved
document is viewed offline; refusals are one sentence on stderr, never a traceback."""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest

import client.cli as client_cli
from client import library as client
from client.cli import main
from client.cli import replay as cli
from client.tui.board import layout_board, parse_view
from client.tui.replay_model import build_replay
from client.tui.replay_screen import ReplayApp, ReplayScreen
from client.tui.widgets import BoardView
from protocol import messages as m

from .helpers import player_id, rendered, until
from .test_replay_model import document

pytestmark = pytest.mark.timeout(120)

GAME = "fours-up"


ROOT = Path(__file__).resolve().parents[2]


def parsed(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    cli.add_arguments(parser)
    return parser.parse_args(list(argv))


async def play(c: client.Client, race: str, moves: int) -> list[m.Ack]:
    """Up to ``moves`` moves, home moves first, from the legal moves the server sends back
    (the seed is sealed until the end): the acks, each with the view after the move."""
    acks = [await c.move(race, "draw", view=True)]
    while len(acks) < moves and not acks[-1].won:
        legal = acks[-1].legal or []
        home = [x for x in legal if ">f" in x and not x.startswith("f")]
        picks = home or [x for x in legal if x == "draw"] or legal
        if not picks:
            break
        acks.append(await c.move(race, picks[0], view=True))
    return acks


async def finished_race(
    a: client.Client, b: client.Client | None, moves: tuple[int, int] = (12, 5), private: bool = False
) -> tuple[str, int, dict[str, list[m.Ack]], str | None]:
    """A race of ``a`` (and ``b``) played a little, then declared finished by both: its id,
    start, every player's acks, and its invite."""
    snap = await a.create(GAME, seats=2 if b else 1, time_limit_s=120, private=private)
    players = [a] if b is None else [a, b]
    if b is not None:
        await b.join(snap.race, invite=snap.invite)
    for c in players:
        await c.ready(snap.race)
    starts = [await c.wait_for(m.Started, lambda ev: ev.race == snap.race, timeout=20) for c in players]
    acks: dict[str, list[m.Ack]] = {}
    for c, count in zip(players, moves, strict=False):
        acks[player_id(c)] = await play(c, snap.race, count)
        await c.finish(snap.race)
    for c in players:
        await c.wait_for(m.End, lambda ev: ev.race == snap.race, timeout=20)
    return snap.race, starts[0].starts_at, acks, snap.invite


async def replay_command(capsys, *argv: str) -> tuple[int, str]:
    """`solrace replay ARGV` for a refusal (it never opens the viewer): its exit status and
    stderr. In a thread: the command runs its own event loop, while this one serves."""
    status = await asyncio.to_thread(main, ["replay", *argv])
    return status, capsys.readouterr().err


async def test_a_finished_race_is_fetched_replayed_and_viewed(server) -> None:
    url = server.ws_url
    async with client.connect(url, name="ada") as a, client.connect(url, name="bob") as b:
        race, starts_at, acks, _ = await finished_race(a, b)

    doc = await cli.obtain(parsed("--url", url, "--race", race))
    replay = build_replay(doc)
    assert replay.race == race and replay.game == GAME
    ada_id, bob_id = player_id(a), player_id(b)
    for p in replay.players:
        mine = acks[p.player]
        assert [f.move for f in p.frames[1:]] == [ack.move for ack in mine]
        # Each position is the one the server sent after that move, at that time into the race.
        assert [f.view for f in p.frames[1:]] == [ack.view for ack in mine]
        assert [f.at_ms for f in p.frames[1:]] == [ack.at - starts_at for ack in mine]
        assert [f.home for f in p.frames[1:]] == [ack.home for ack in mine]

    bob = replay.index_of("bob")
    na, nb = len(acks[ada_id]), len(acks[bob_id])  # 12 and 5 unless a game ran dry
    app = ReplayApp(replay, bob, pace_s=0.02)
    async with app.run_test(size=(130, 45)) as pilot:
        screen: ReplayScreen = await until(pilot, lambda: isinstance(app.screen, ReplayScreen) and app.screen)
        status = screen.query_one("#replay-status")

        def says(text: str) -> bool:
            return text in rendered(status)

        await until(pilot, lambda: says(f"bob · move 0 of {nb} · the deal"), what="bob's deal")
        board = screen.query_one("#replay-board", BoardView)

        def drawn() -> str:
            assert board.canvas is not None, "the board is not drawn"
            return board.canvas.text()

        assert drawn() == layout_board(parse_view(replay.players[bob].frames[0].view)).text()
        await pilot.press("right")
        await until(pilot, lambda: says(f"move 1 of {nb} · {acks[bob_id][0].move}"), what="move 1")
        await pilot.press("end")
        await until(pilot, lambda: says(f"move {nb} of {nb}") and says("declared finished"), what="the end")
        assert drawn() == layout_board(parse_view(acks[bob_id][-1].view or "")).text()
        await pilot.press("n")  # past the end: stays
        await pilot.press("p", "left")
        await until(pilot, lambda: says(f"move {nb - 2} of {nb}"), what="two back")
        await pilot.press("home")
        await until(pilot, lambda: says(f"bob · move 0 of {nb}"), what="the deal again")

        # Tab: the other player at the same moment (the deal); 2 and 1 pick by place.
        await pilot.press("tab")
        await until(pilot, lambda: says(f"ada · move 0 of {na}"), what="ada")
        await pilot.press(str(bob + 1))
        await until(pilot, lambda: says("bob · move 0"), what="bob by key")
        await pilot.press(str(replay.index_of("ada") + 1))
        await until(pilot, lambda: says("ada · move 0"), what="ada by key")

        # Auto-play runs from the deal to the end and stops there.
        await pilot.press("space")
        await until(pilot, lambda: not screen.playing and says(f"move {na} of {na}"), what="auto-play done")
        # Space again starts over from the deal (a pace no test waits for: nothing moves by
        # itself now); a key that moves by hand stops it, and so does space.
        screen.pace_s = 600
        await pilot.press("space")
        await until(
            pilot, lambda: screen.playing and says(f"ada · move 0 of {na} · the deal"), what="over again"
        )
        assert "auto-play" in rendered(status)
        await pilot.press("right")
        await until(pilot, lambda: not screen.playing and says(f"move 1 of {na}"), what="stopped by a step")
        await pilot.press("space")
        await until(pilot, lambda: screen.playing, what="auto-play again")
        await pilot.press("space")
        await until(pilot, lambda: not screen.playing and "auto-play" not in rendered(status), what="stopped")

        await pilot.press("escape")
        await until(pilot, lambda: app.return_value == 0, what="the app quit")


async def test_a_saved_document_is_viewed_offline(server, tmp_path) -> None:
    async with client.connect(server.ws_url, name="ada") as a:
        race, _, acks, _ = await finished_race(a, None, moves=(7, 0))
    doc = await cli.obtain(parsed("--url", server.ws_url, "--race", race))
    saved = tmp_path / "race.json"
    saved.write_text(json.dumps(doc))
    packed = tmp_path / "race.msgpack"
    packed.write_bytes(msgspec.msgpack.encode(doc))
    for path in (saved, packed):
        again = build_replay(await cli.obtain(parsed(str(path))))
        assert again == build_replay(doc) and again.players[0].last == len(acks[player_id(a)])


async def test_refusals_are_one_sentence(server, tmp_path, capsys, monkeypatch) -> None:
    url = server.ws_url
    status, err = await replay_command(capsys, "--url", url, "--race", "rnope")
    assert status == 2
    assert err == (
        "solrace replay: There is no race rnope on this server (a wrong id, or a race too old to be kept).\n"
    )

    async with client.connect(url, name="ada") as a:
        lobby = await a.create(GAME, seats=2)  # nobody ready: not over
        status, err = await replay_command(capsys, "--url", url, "--race", lobby.race)
        assert (status, err) == (
            2,
            f"solrace replay: Race {lobby.race} has not finished: its replay opens once it has.\n",
        )
        await a.leave(lobby.race)
        race, _, _, invite = await finished_race(a, None, moves=(3, 0), private=True)
        token = a.token

    # A private race: refused to a new guest; its player's token file or its invite opens it.
    status, err = await replay_command(capsys, "--url", url, "--race", race)
    assert status == 2 and err.count("\n") == 1
    assert (
        err.startswith(f"solrace replay: Race {race} is private: only its players") and "--token-file" in err
    )
    assert token and invite
    mine = tmp_path / "token"
    mine.write_text(token + "\n")
    by_token = await cli.obtain(parsed("--url", url, "--race", race, "--token-file", str(mine)))
    by_invite = await cli.obtain(parsed("--url", url, "--race", race, f"--invite={invite}"))
    link = await cli.obtain(
        parsed("--race", f"{url.replace('ws://', 'http://')[: -len('/ws')]}/#race={race}&invite={invite}")
    )
    assert by_token["seed"] == by_invite["seed"] == link["seed"]
    # An id alone is looked up on the default server, as `solrace play` connects to it (here
    # the test's server stands in for it).
    monkeypatch.setattr(client_cli, "DEFAULT_URL", url)
    alone = await cli.obtain(parsed("--race", race, f"--invite={invite}"))
    assert alone["seed"] == link["seed"]

    # The command's own mistakes: one line each too.
    for argv, says in (
        (["--url", url], "with --url give --race ID"),
        ([], "give a replay file, or --url with --race"),
        (["--url", url, "--race", race, "--token-file", str(tmp_path / "none")], "no token in"),
        (
            [str(tmp_path / "race.json"), "--url", url, "--race", race],
            "give a replay file or --race, not both",
        ),
        (["--url", url, "--race", race, f"--invite={invite}", "--player", "nobody"], "--player: no 'nobody'"),
    ):
        status, err = await replay_command(capsys, *argv)
        assert status == 2 and err.startswith(f"solrace replay: {says}") and err.count("\n") == 1
    no_seed = tmp_path / "sealed.json"
    no_seed.write_text(json.dumps({"game": GAME, "players": []}))
    status, err = await replay_command(capsys, str(no_seed))
    assert (status, err) == (
        2,
        "solrace replay: the document has no seed: it is revealed only once the race or the day is over\n",
    )


async def test_no_server_is_said_in_words(capsys) -> None:
    """`solrace replay` with no server at its address says where none answered, in a line,
    without the exception (it said "…ConnectionRefusedError: [Errno 111] Connect call…")."""
    from .test_no_server_help import closed_port_url

    url = closed_port_url()
    status, err = await replay_command(capsys, "--url", url, "--race", "r0123")
    where = url.removeprefix("ws://").removesuffix("/ws")
    assert (status, err) == (
        2,
        f"solrace replay: cannot fetch the replay: no server answered at {where} — is it running?\n",
    )


@pytest.mark.daily
async def test_a_daily_attempt_is_refused_until_its_day_closes(server, tmp_path, capsys) -> None:
    async with client.connect(server.ws_url, name="ada") as a:
        snap = await a.request(m.DailyStart(game=GAME))
        await a.wait_for(m.Started, lambda ev: ev.race == snap.race, timeout=20)
        await a.finish(snap.race)
        await a.wait_for(m.End, lambda ev: ev.race == snap.race, timeout=20)
        mine = tmp_path / "token"
        mine.write_text(f"{a.token}\n")
    for who in ([], ["--token-file", str(mine)]):  # its player is refused as anyone is
        status, err = await replay_command(capsys, "--url", server.ws_url, "--race", snap.race, *who)
        assert (status, err) == (
            2,
            f"solrace replay: Race {snap.race} is a daily attempt: its moves stay sealed until its day "
            "closes (00:00 UTC).\n",
        )


def test_a_document_from_a_pipe_needs_a_terminal_for_the_keys(tmp_path) -> None:
    """`solrace replay -` reads the document from stdin, then the viewer's keys from the
    terminal (as a pager does); with no terminal at all it says so in one line, exit 2 (it
    used to open a viewer that no key could reach)."""
    doc = document(GAME, {"a": ["draw", "draw"]})
    done = subprocess.run(
        [sys.executable, "-m", "client.cli", "replay", "-"],
        cwd=ROOT,
        input=json.dumps(doc).encode(),
        capture_output=True,
        timeout=60,
        start_new_session=True,  # no controlling terminal
    )
    assert done.returncode == 2, done
    assert (
        done.stderr.decode()
        == "solrace replay: the viewer needs a terminal for its keys, and there is none\n"
    )


async def test_a_board_taller_than_the_terminal_scrolls_with_the_arrows() -> None:
    replay = build_replay(document("double-aces-and-kings", {"a": ["draw"]}))
    app = ReplayApp(replay)
    # 80x12: the board's 11 rows are whole from 17 rows on (board.TERMINAL_ROWS)
    async with app.run_test(size=(80, 12)) as pilot:
        board = app.screen.query_one("#replay-board-scroll")
        await until(pilot, lambda: board.max_scroll_y > 2, what="a board taller than 12 rows")
        await pilot.press("down", "down")
        await until(pilot, lambda: board.scroll_y == 2, what="two rows down")
        await pilot.press("pagedown")
        await until(pilot, lambda: board.scroll_y == board.max_scroll_y, what="the bottom")
        await pilot.press("up")
        await until(pilot, lambda: board.scroll_y == board.max_scroll_y - 1, what="a row up")
        assert isinstance(app.screen, ReplayScreen)
        assert app.screen.cursor.index == 0  # scrolling moves no move
