"""The terminal replay viewer's plain parts (client/tui/replay_model.py, replay_text.py): the
frames a replay document gives (each the position the rules engine reaches after that many
moves), the cursor's bounds and player switches, the line under the board, and the
sentences for refused replays. No sockets, no terminal."""

from __future__ import annotations

import random
from typing import Any

import pytest

from client.tui.board import parse_view
from client.tui.replay_model import (
    Cursor,
    ReplayError,
    at_end,
    build_replay,
    frame,
    frame_at,
    jump,
    landed_on,
    player_frames,
    step,
    switch,
)
from client.tui.replay_text import players_text, refusal_text, status_text, title_text
from client.tui.text import duration
from protocol import rules
from protocol.rules.errors import ILLEGAL_MOVE_CODES

SEED = "replay-viewer-test-seed"
START = 1_700_000_000_000  # server ms of the race's start


def random_moves(game: str, seed: str, count: int, rng: random.Random) -> list[str]:
    """Up to ``count`` legal moves from the deal (home moves preferred, so that cards go home)."""
    g, out = rules.deal(game, seed), []
    for _ in range(count):
        legal = g.legal_moves()
        if not legal or g.won:
            break
        home = [m for m in legal if ">f" in m and not m.startswith("f")]
        move = rng.choice(home) if home and rng.random() < 0.7 else rng.choice(legal)
        g.play(move)
        out.append(move)
    return out


def document(game: str, logs: dict[str, list[str]], *, step_ms: dict[str, int] | None = None) -> dict:
    """A `replay` reply for ``logs`` (player id -> moves), each player's moves timed
    ``step_ms[player]`` apart (700 by default) from START, ranked by cards home (the figures
    as the ranking entries carry them)."""
    players: list[dict[str, Any]] = []
    entries: list[dict[str, Any]] = []
    for who, moves in logs.items():
        every = (step_ms or {}).get(who, 700)
        times = [START + (i + 1) * every for i in range(len(moves))]
        timed = [[m, at] for m, at in zip(moves, times, strict=True)]
        players.append({"player": who, "name": who.upper(), "moves": timed})
        g = rules.replay(game, SEED, moves)
        entries.append(
            {
                "player": who,
                "name": who.upper(),
                "status": "won" if g.won else "timeout",
                "won": g.won,
                "home": g.cards_home,
                "moves": len(moves),
                "time_ms": times[-1] - START if g.won else None,
                "home_at_ms": None,
                "last_move_ms": times[-1] - START if times else None,
            }
        )
    entries.sort(key=lambda e: -e["home"])
    for rank, e in enumerate(entries, 1):
        e["rank"] = rank
    return {
        "race": "r8a1c",
        "game": game,
        "seed": SEED,
        "rules_version": 1,
        "ranking": entries,
        "players": players,
    }


@pytest.mark.parametrize("game", sorted(rules.GAMES))
def test_every_frame_is_the_position_after_that_many_moves(game: str) -> None:
    moves = random_moves(game, SEED, 300, random.Random(game))
    replay = build_replay(document(game, {"p1": moves}))
    (p,) = replay.players
    assert p.last == len(moves) and p.stopped is None
    assert [f.n for f in p.frames] == list(range(len(moves) + 1))
    assert [f.move for f in p.frames] == [None, *moves]
    for k in (0, 1, len(moves) // 2, len(moves)):
        g = rules.replay(game, SEED, moves[:k])
        f = p.frames[k]
        assert (f.view, f.home, f.won) == (g.view_text(), g.cards_home, g.won)
        parse_view(f.view)  # what the board draws
    # The times are into the race: the start is inferred from the ranking's last_move_ms.
    assert p.frames[0].at_ms == 0 and p.frames[1].at_ms == 700 and p.frames[-1].at_ms == 700 * len(moves)


def test_players_come_by_rank_and_switch_at_the_same_moment() -> None:
    game = "fours-up"
    logs = {
        "slow": random_moves(game, SEED, 40, random.Random(1)),
        "fast": random_moves(game, SEED, 60, random.Random(2)),
    }
    assert len(logs["fast"]) > 23
    doc = document(game, logs, step_ms={"fast": 300})
    doc["ranking"] = [dict(e, rank=1 if e["player"] == "fast" else 2) for e in doc["ranking"]]
    replay = build_replay(doc)
    assert [p.player for p in replay.players] == ["fast", "slow"]
    assert replay.index_of("slow") == 1 and replay.index_of("SLOW") == 1 and replay.index_of("nobody") == 0
    # `--player 2`: the place the viewer numbers its players by (its keys 1-9), not only an id or
    # a name (it was refused: "--player: no '2' in this race")
    assert replay.find("2") == 1 and replay.find("1") == 0 and replay.find("3") is None

    # The slow player's move 10 was at 7.0 s; the fast one had made 23 moves by then.
    at_slow = Cursor(1, 10, replay.players[1].frames[10].at_ms)
    assert at_slow == step(replay, Cursor(1, 9, 6300), 1)
    fast = switch(replay, at_slow, 0)
    assert (fast.player, fast.index) == (0, 23) and frame(replay, fast).at_ms == 6900
    assert switch(replay, fast, 1) == at_slow  # and back exactly: the moment is kept
    assert switch(replay, fast, 3).player == 1  # wraps around
    assert frame_at(replay.players[0].frames, 10**9) == replay.players[0].last
    assert frame_at(replay.players[0].frames, 0) == 0


def switched_race(slow_end: dict) -> tuple:
    """A race of "fast" (a move every 0.3 s) and "slow" (10 moves, the last at 7.0 s) whose
    ranking entry is updated with ``slow_end``; the replay and the two players' places."""
    game = "fours-up"
    logs = {
        "fast": random_moves(game, SEED, 60, random.Random(2)),
        "slow": random_moves(game, SEED, 10, random.Random(1)),
    }
    assert len(logs["fast"]) >= 50 and len(logs["slow"]) == 10
    doc = document(game, logs, step_ms={"fast": 300})
    for e in doc["ranking"]:
        if e["player"] == "slow":
            e.update(slow_end)
    replay = build_replay(doc)
    return replay, replay.index_of("fast"), replay.index_of("slow")


def test_after_a_switch_the_line_says_the_moment_and_an_end_only_once_it_came() -> None:
    replay, fast, slow = switched_race({"status": "finished", "time_ms": 12_000})
    at = {ms: Cursor(fast, ms // 300, ms) for ms in (9_000, 12_000)}
    assert all(frame(replay, c).at_ms == c.at_ms for c in at.values())

    # At 9.0 s slow's last move (7.0 s) is on the board, and the finish (12.0 s) is to come.
    seen = switch(replay, at[9_000], slow)
    assert seen.index == 10 and frame(replay, seen).at_ms == 7_000
    line = status_text(replay, seen)
    assert line.endswith("· 0:09.0 into the race") and "declared finished" not in line
    assert not at_end(replay, seen)
    assert status_text(replay, switch(replay, at[12_000], slow)).endswith(
        "· 0:12.0 into the race · declared finished"
    )

    # Stepping slow's own moves: the last one at its time, then on to the finish, and no further.
    last = step(replay, Cursor(slow, 9, 6_300), 1)
    assert (last.index, last.at_ms) == (10, 7_000) and "declared finished" not in status_text(replay, last)
    end = step(replay, last, 1)
    assert end == jump(replay, last, True) == Cursor(slow, 10, 12_000) and at_end(replay, end)
    assert status_text(replay, end).endswith("· 0:12.0 into the race · declared finished")
    assert step(replay, end, 1) == end and step(replay, end, -1).index == 9


def test_a_time_up_shows_only_once_nothing_else_is_left_in_the_race() -> None:
    replay, fast, slow = switched_race({"status": "timeout", "time_ms": None})
    fast_end = jump(replay, Cursor(fast), True)
    assert fast_end.at_ms is not None
    # The deadline is not in the document: it comes after fast's last move, the race's last event.
    assert fast_end.at_ms == replay.players[fast].frames[-1].at_ms
    for ms in (9_000, fast_end.at_ms - 300):
        line = status_text(replay, switch(replay, Cursor(fast, ms // 300, ms), slow))
        assert "time up" not in line and line.endswith(f"· {duration(ms)} into the race")
    assert status_text(replay, switch(replay, fast_end, slow)).endswith("· time up")


def test_stepping_stays_within_the_frames() -> None:
    moves = random_moves("racing-aces", SEED, 25, random.Random(3))
    replay = build_replay(document("racing-aces", {"a": moves}))
    start = Cursor()
    assert step(replay, start, -1) == start and not at_end(replay, start)
    end = jump(replay, start, True)
    assert end.index == len(moves) and at_end(replay, end)
    assert step(replay, end, 1) == end and step(replay, end, 100) == end
    assert step(replay, end, -1).index == len(moves) - 1
    assert jump(replay, end, False) == start
    assert step(replay, start, 5).at_ms == frame(replay, step(replay, start, 5)).at_ms == 3500


def test_the_pile_a_move_landed_on_is_the_one_marked() -> None:
    assert [landed_on(m) for m in ("t2:3>t5", "w>f3", "r0>f12", "draw", None)] == [
        "t5",
        "f3",
        "f12",
        None,
        None,
    ]


def test_an_illegal_move_ends_the_frames_and_says_so() -> None:
    moves = random_moves("fours-up", SEED, 12, random.Random(4))
    doc = document("fours-up", {"a": moves})
    doc["players"][0]["moves"].insert(5, ["t0>t0", START + 3600])
    (p,) = build_replay(doc).players
    assert p.last == 5 and p.stopped is not None and "move 6 't0>t0' is illegal" in p.stopped


def test_a_daily_document_has_a_start_per_player_and_no_race() -> None:
    moves = random_moves("fours-up", SEED, 10, random.Random(5))
    doc = document("fours-up", {"a": moves})
    del doc["race"]
    doc.update(date="2025-03-14", total=104)
    doc["players"][0]["starts_at"] = START - 1000  # its own attempt's start
    replay = build_replay(doc)
    assert replay.players[0].frames[1].at_ms == 1700
    assert title_text(replay).plain == f"daily 2025-03-14 · Fours Up · seed {SEED}"


def test_without_a_start_the_times_are_unknown_and_a_switch_keeps_the_move_count() -> None:
    doc = document("fours-up", {"a": random_moves("fours-up", SEED, 10, random.Random(6)), "b": []})
    for e in doc["ranking"]:
        e["last_move_ms"] = e["time_ms"] = None
    replay = build_replay(doc)
    assert all(f.at_ms is None for p in replay.players for f in p.frames)
    cur = Cursor(replay.index_of("a"), 7, None)
    assert "into the race" not in status_text(replay, cur)
    assert switch(replay, cur, replay.index_of("b")).index == 0  # b made no move


@pytest.mark.parametrize(
    ("doc", "says"),
    [
        ([], "a map"),
        ({"game": "chess", "seed": "x"}, "unknown game 'chess'"),
        ({"game": "fours-up"}, "no seed"),
        ({"game": "fours-up", "seed": "x", "players": []}, "no player's moves"),
        ({"game": "fours-up", "seed": "x", "deal_version": 99, "players": [{}]}, "deal_version 99"),
        ({"game": "fours-up", "seed": "x", "players": [{"player": "a", "moves": [[1]]}]}, "move 1 is not"),
        # fields of the wrong type (a hand-made file): one sentence, no traceback
        ({"game": ["fours-up"], "seed": "x"}, "malformed"),
        ({"game": "fours-up", "seed": "x", "players": [{"player": "a", "moves": 3}]}, "malformed"),
        ({"game": "fours-up", "seed": "x", "ranking": 3, "players": [{"player": "a"}]}, "malformed"),
        ({"game": "fours-up", "seed": "x", "total": "abc", "players": [{"player": "a"}]}, "malformed"),
        ({"game": "fours-up", "seed": "x", "starts_at": "abc", "players": [{"player": "a"}]}, "malformed"),
        (
            {
                "game": "fours-up",
                "seed": "x",
                "ranking": [{"player": "a", "rank": "first"}],
                "players": [{"player": "a"}],
            },
            "malformed",
        ),
        (
            {
                "game": "fours-up",
                "seed": "x",
                "ranking": [{"player": "a", "last_move_ms": "x"}],
                "players": [{"player": "a", "moves": [["draw", 5]]}],
            },
            "malformed",
        ),
    ],
)
def test_a_document_that_cannot_be_replayed_says_why(doc: object, says: str) -> None:
    with pytest.raises(ReplayError, match=says):
        build_replay(doc)


def test_the_line_under_the_board() -> None:
    moves = random_moves("fours-up", SEED, 9, random.Random(7))
    replay = build_replay(document("fours-up", {"ada": moves}))
    g0 = rules.deal("fours-up", SEED)
    assert (
        status_text(replay, Cursor())
        == f"ADA · move 0 of 9 · the deal · {g0.cards_home}/104 cards home · 0:00.0 into the race"
    )
    g3 = rules.replay("fours-up", SEED, moves[:3])
    assert status_text(replay, step(replay, Cursor(), 3)) == (
        f"ADA · move 3 of 9 · {moves[2]} · {g3.cards_home}/104 cards home · 0:02.1 into the race"
    )
    assert status_text(replay, jump(replay, Cursor(), True)).endswith("0:06.3 into the race · time up")
    players = players_text(replay, Cursor()).plain
    assert "1 ADA · last move at 0:06.3" in players


def test_a_refusal_is_one_sentence() -> None:
    texts = {
        code: refusal_text(code, "r8a1c")
        for code in (
            "no-such-race",
            "race-not-over",
            "daily-open",
            "private-race",
            "bad-token",
            "internal",
            "disconnected",
        )
    }
    assert (
        texts["no-such-race"]
        == "There is no race r8a1c on this server (a wrong id, or a race too old to be kept)."
    )
    assert texts["race-not-over"] == "Race r8a1c has not finished: its replay opens once it has."
    assert texts["daily-open"] == (
        "Race r8a1c is a daily attempt: its moves stay sealed until its day closes (00:00 UTC)."
    )
    assert "--token-file" in texts["private-race"] and "--invite" in texts["private-race"]
    assert "--token-file" not in refusal_text("private-race", "r8a1c", flags=False)
    # a code without words: the server's message, its code only when it sent none
    fault = "server fault; the request had no effect"
    assert (
        refusal_text("internal", "r8a1c", fault) == f"The server refused the replay of race r8a1c: {fault}."
    )
    assert texts["internal"] == "The server refused the replay of race r8a1c (internal)."
    assert texts["disconnected"].startswith("The server did not answer for race r8a1c")
    for text in texts.values():
        assert "\n" not in text and text.endswith(".") and text.count(". ") == 0


def test_an_illegal_move_in_a_replay_is_said_in_words_not_by_its_code() -> None:
    """The replay viewer's line read "move 1 't0>t1' is illegal (not-accepted): …", the rules
    engine's code, where the players read the reason."""
    g = rules.deal("fours-up", "words")
    illegal = next(m for m in ("t0>t1", "t1>t0", "t0>t2", "t2>t0") if m not in g.legal_moves())
    frames, why = player_frames("fours-up", "words", [(illegal, None)], None)
    assert len(frames) == 1 and why is not None
    assert why.startswith(f"move 1 {illegal!r} is illegal (") and why.endswith("the replay stops before it")
    assert not any(f"({code})" in why for code in ILLEGAL_MOVE_CODES), why
