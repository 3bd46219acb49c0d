"""Plain-function tests of the terminal UI: layout, clicks, formatting, model."""

from __future__ import annotations

import hashlib

import pytest
from must import must

from client.tui.board import BACK, Marks, card_text, layout_board, parse_view
from client.tui.board_input import click, complete, targets_for
from client.tui.links import make_link, parse_invite, parse_link
from client.tui.model import RaceModel
from client.tui.text import bar, clock, commitment_ok, progress_line, ranking_lines, tie_break_notes
from client.tui.widgets import bars_text
from protocol.rules.engine import deal

GAMES = {
    "racing-aces": (16, 3, 6, True),
    "double-aces-and-kings": (16, 4, 8, True),
    "rouge-et-noir": (8, 0, 10, False),
    "fours-up": (8, 0, 6, True),
}


@pytest.mark.parametrize("game", list(GAMES))
def test_every_pile_of_every_game_is_laid_out_and_labelled(game):
    g = deal(game, "0123456789abcdef0123456789abcdef")
    for _ in range(3):
        g.play("draw")
    board = parse_view(g.view_text())
    canvas = layout_board(board)
    text = canvas.text()
    nf, nr, nt, waste = GAMES[game]
    piles_on_canvas = {c.pile for c in canvas.cells if c.pile}
    expected = (
        {f"f{i}" for i in range(nf)} | {f"r{i}" for i in range(nr)} | {f"t{i}" for i in range(nt)} | {"s"}
    )
    if waste:
        expected.add("w")
    assert expected == piles_on_canvas
    for name in expected - {"w"}:  # every pile name is written on screen (the waste as "w")
        assert any(c.text.strip() == name and c.pile == name for c in canvas.cells), name
    # every visible card of the view is drawn, as rank + suit symbol
    for name, cards in board.piles.items():
        if name == "w":
            continue  # the waste is fanned to its last few cards
        for i, code in enumerate(cards):
            if name.startswith("f") and i < len(cards) - 1:
                continue  # foundations show their top
            cell = next(c for c in canvas.cells if c.pile == name and c.index == i)
            assert cell.text == card_text(code)
    # stock count visible
    assert str(board.stock) in text
    # face-down cards rendered as backs, exactly as many as in the view
    downs = sum(c is None for cards in board.piles.values() for c in cards)
    backs = sum(1 for c in canvas.cells if c.text == BACK and c.pile != "s")
    assert backs == downs
    if game == "rouge-et-noir":
        assert downs == 7 + 6 + 5 + 4 + 3 + 2 + 1
        assert "??" not in text


def test_card_text_and_suits():
    assert card_text("Th") == "10♥"
    assert card_text("9c") == " 9♣"
    assert card_text("As") == " A♠"
    assert card_text(None) == BACK
    g = deal("racing-aces", "x")
    canvas = layout_board(parse_view(g.view_text()))
    for c in canvas.cells:
        if c.text.endswith(("♥", "♦")):
            assert "red" in c.style
        elif c.text.endswith(("♣", "♠")):
            assert "black" in c.style


def test_racing_aces_groups_and_reserve_fan():
    g = deal("racing-aces", "abc")
    text = layout_board(parse_view(g.view_text())).text()
    for title in ("Aces", "Sixes", "Sevens", "Kings", "Reserves", "Tableau", "Stock", "Waste"):
        assert title in text
    assert "r0  13  A♣" in text and "111" in text


def test_a_spectators_board_with_hidden_face_up_cards():
    """A spectator's board hides the cards a rival still playing has not seen as ?? anywhere in
    a pile (docs/protocol.md `spectate`): they are backs, and a foundation whose top is hidden
    shows how many cards it holds instead (its top's rank would have said how far it is built)."""
    text = (
        "fours-up f0:4c5c???? f1:4d f2: f3: f4: f5: f6: f7: t0:Qd t1: t2:2s t3:7h????4c t4: t5: s:#83 w:????"
    )
    board = parse_view(text)
    assert board.cards("f0") == ("4c", "5c", None, None) and board.cards("w") == (None, None)
    assert board.cards("t3") == ("7h", None, None, "4c")
    canvas = layout_board(board)
    x, y = canvas.where("f0", 3)  # the middle of its top card
    assert canvas.lines()[y][x - 1 : x + 2] == " 4 "  # four cards on it, the top one hidden
    drawn = canvas.text()
    assert BACK in drawn and " 7♥" in drawn and " 4♣" in drawn


def test_parse_full_position_text_too():
    g = deal("rouge-et-noir", "abc")
    b = parse_view(g.to_text())
    assert b.stock == 67 and b.cards("t0")[0] is None and b.cards("t0")[-1] is not None
    assert parse_view(g.view_text()) == b


def test_clicks_make_moves():
    g = deal("racing-aces", "abc")
    b = parse_view(g.view_text())
    r = click(b, None, "t0", 0)
    assert r.selected == ("t0", 1) and r.move is None
    assert click(b, r.selected, "f3", None).move == "t0>f3"
    assert click(b, ("r1", 1), "t4", 0).move == "r1>t4"
    assert click(b, None, "s", None).move == "draw"
    assert click(b, ("t0", 1), "s", None).move == "draw"
    assert click(b, ("t0", 1), "t0", 0).selected is None  # click again: deselect
    assert click(b, None, "f0", None).selected is None  # empty pile: nothing to pick up
    # a reserve: whatever card is clicked, its top is picked up
    assert click(b, None, "r0", 3).selected == ("r0", 1)


def test_clicking_deeper_selects_a_run():
    g = deal("fours-up", "abc")
    b = parse_view(
        "fours-up f0:4c f1:4d f2:4h f3:4s f4:4c f5:4d f6:4h f7:4s "
        "t0:KhQsJd t1:Ah t2:Qs t3:3c t4:Ac t5: s:#87 w:9c"
    )
    assert click(b, None, "t0", 0).selected == ("t0", 3)
    assert click(b, None, "t0", 1).selected == ("t0", 2)
    assert click(b, None, "t0", 2).selected == ("t0", 1)
    assert click(b, None, "t0", None).selected == ("t0", 1)
    assert click(b, ("t0", 2), "t5", None).move == "t0:2>t5"
    assert click(b, ("t0", 3), "t0", 1).selected == ("t0", 2)  # reselect at another depth
    assert g is not None


def test_face_down_cards_cannot_be_picked():
    b = parse_view(deal("rouge-et-noir", "abc").view_text())
    r = click(b, None, "t0", 0)
    assert r.selected is None and "face-down" in must(r.note)
    assert click(b, None, "t0", 7).selected == ("t0", 1)


def test_click_on_canvas_positions():
    g = deal("fours-up", "abc")
    canvas = layout_board(parse_view(g.view_text()))
    x, y = canvas.where("t2", 0)
    assert canvas.hit(x, y) == ("t2", 0)
    x, y = canvas.where("f5")
    assert must(canvas.hit(x, y))[0] == "f5"
    x, y = canvas.where("s")
    assert must(canvas.hit(x, y))[0] == "s"
    assert canvas.hit(500, 500) is None


def test_targets_and_completion():
    legal = ["draw", "t0>f1", "t0>f2", "t2:2>t5", "t2>t5", "w>f3"]
    assert targets_for(legal, ("t0", 1)) == {"f1", "f2"}
    assert targets_for(legal, ("t2", 2)) == {"t5"}
    assert targets_for(legal, None) == frozenset()
    assert complete(legal, "t0") == "t0>f1"
    assert complete(legal, "t0", "t0>f1") == "t0>f2"
    assert complete(legal, "t0", "t0>f2") == "t0>f1"
    assert complete(legal, "x") is None
    m = layout_board(parse_view(deal("racing-aces", "abc").view_text()), Marks(("t0", 1), frozenset({"f1"})))
    assert any(c.pile == "f1" and "green" in c.style for c in m.cells)
    assert any(c.pile == "t0" and c.index == 0 and "yellow" in c.style for c in m.cells)


def test_formatting():
    assert bar(1, 1000, 10) == "▏" + "░" * 9
    assert (
        bar(0, 100, 10) == "░" * 10
        and bar(100, 100, 10) == "█" * 10
        and bar(50, 100, 10) == "█" * 5 + "░" * 5
    )
    assert (
        clock(65_000) == "1:05"
        and clock(-5) == "0:00"
        and clock(None) == "--:--"
        and clock(3_725_000) == "1:02:05"
    )
    line = progress_line("ada", 78, 156, 40, "playing", 10, me=True)
    assert "ada" in line and "78/156" in line and "50%" in line and "█████░░░░░" in line
    seed = "0f3"
    assert commitment_ok(seed, hashlib.sha256(b"0f3").hexdigest())
    assert not commitment_ok(seed, "00" * 32) and not commitment_ok(None, "x")
    lines = ranking_lines(
        [
            {
                "rank": 1,
                "name": "ada",
                "status": "won",
                "won": True,
                "home": 156,
                "moves": 300,
                "time_ms": 125_400,
                "home_at_ms": 125_400,
            },
            {
                "rank": 2,
                "name": "bob",
                "status": "timeout",
                "won": False,
                "home": 80,
                "moves": 200,
                "time_ms": None,
                "home_at_ms": 90_000,
                "last_move_ms": 173_000,
            },
            {
                "rank": 3,
                "name": "cy",
                "status": "finished",
                "won": False,
                "home": 8,
                "moves": 0,
                "time_ms": 4_000,
                "home_at_ms": 0,
                "last_move_ms": None,
            },
            {
                "rank": 4,
                "name": "di",
                "status": "timeout",
                "won": False,
                "home": 0,
                "moves": 0,
                "time_ms": None,
                "home_at_ms": 0,
                "last_move_ms": None,
            },
        ]
    )
    assert lines[0].startswith(" 1. ada") and "won in 2:05.4" in lines[0]
    # others: when they stopped, labelled; never the moment the last card went home
    assert "last move at 2:53.0" in lines[1] and "1:30.0" not in lines[1]
    assert "stopped at 0:04.0" in lines[2]
    assert lines[3].rstrip().endswith("no move")


def test_links():
    assert parse_link("r8a1") == (None, "r8a1")
    assert parse_link("http://h:8765/#race=r1") == ("ws://h:8765/ws", "r1")
    assert parse_link("https://h/race/r2") == ("wss://h/ws", "r2")
    assert parse_link("ws://h:1/ws?race=r3") == ("ws://h:1/ws", "r3")
    assert parse_link(make_link("ws://127.0.0.1:9/ws", "r4")) == ("ws://127.0.0.1:9/ws", "r4")
    # the web client's replay and watch pages name their race too
    assert parse_link("http://h:8765/#replay=r6") == ("ws://h:8765/ws", "r6")
    assert parse_link("http://h:8765/#replay=r7&daily=fours-up&date=2026-12-01") == ("ws://h:8765/ws", "r7")
    assert parse_link("https://h/#watch=r8") == ("wss://h/ws", "r8")
    # A private race's link carries its invite.
    link = make_link("wss://h/ws", "r5", "Vd3-x_9")
    assert link == "https://h/#race=r5&invite=Vd3-x_9"
    assert parse_link(link) == ("wss://h/ws", "r5") and parse_invite(link) == "Vd3-x_9"
    assert parse_invite("ws://h:1/ws?race=r3&invite=k") == "k"
    assert parse_invite("r8a1") is None and parse_invite(make_link("ws://h/ws", "r4")) is None


def test_model_shows_a_berserk_player_their_own_half_clock():
    m = RaceModel(me="p1")
    snap = {
        "t": "race",
        "race": "r1",
        "ver": 3,
        "game": "fours-up",
        "status": "running",
        "seats": 2,
        "time_limit_s": 60,
        "starts_at": 1000,
        "deadline": 61000,
        "total": 104,
        "players": [
            {"player": "p1", "name": "ada", "n": 0, "home": 8, "status": "playing", "berserk": True},
            {"player": "p2", "name": "bob", "n": 0, "home": 8, "status": "playing"},
        ],
    }
    m.apply(snap)
    assert m.players["p1"].berserk and not m.players["p2"].berserk
    # The race's clock runs a minute; the berserk player's own, half of it.
    assert m.remaining_ms(11000) == 50000
    assert m.my_deadline == 31000 and m.remaining_ms(11000, own=True) == 20000
    assert "berserk" in bars_text(m).plain
    m.me = "p2"
    assert m.my_deadline == 61000


def test_a_reply_snapshot_older_than_the_events_shown_changes_nothing_but_the_invite():
    """A join's reply may leave the server after the bus brought a rival's newer `ready`:
    applied, it would show the rival not ready again until the next event."""

    def lobby(ver: int, bob_ready: bool, **more: object) -> dict[str, object]:
        players = [
            {"player": "p1", "name": "ada", "ready": False, "status": "waiting"},
            {
                "player": "p2",
                "name": "bob",
                "ready": bob_ready,
                "status": "ready" if bob_ready else "waiting",
            },
        ]
        return {
            "t": "race",
            "race": "r1",
            "ver": ver,
            "game": "fours-up",
            "status": "lobby",
            "seats": 2,
            "players": players,
            **more,
        }

    m = RaceModel(me="p1")
    m.apply(lobby(2, False))
    m.apply(lobby(3, True))  # bob's ready, by the bus
    m.apply(lobby(2, False, invite="k3y"))  # ada's join reply, sent after it
    assert m.ver == 3 and m.players["p2"].ready and m.invite == "k3y" and not m.gap
    m.apply(lobby(3, True, host="p2"))  # the same version again applies (a reply at the latest)
    assert m.host == "p2"
    # A move's ack may come before a rival's older event: that event still counts.
    m.apply({"t": "ack", "race": "r1", "ver": 6, "n": 1, "status": "playing"})
    m.apply(lobby(5, True, status="running"))
    assert m.status == "running" and m.ver == 6 and m.snapshot_ver == 5


def test_a_progress_repeated_after_a_resync_does_not_put_a_row_back():
    """Events at or below a resync's version may still follow it (the server's event feed ran
    behind Redis): bob's older progress, applied, would show him playing again after his
    finish, until the race's end."""
    m = RaceModel(me="p1")
    bob = {"player": "p2", "name": "bob", "ready": True, "n": 30, "home": 41, "status": "finished"}
    ada = {"player": "p1", "name": "ada", "ready": True, "n": 12, "home": 9, "status": "playing"}
    race = {
        "t": "race",
        "race": "r1",
        "ver": 40,
        "game": "fours-up",
        "status": "running",
        "players": [ada, bob],
    }
    m.apply(
        {
            "t": "state",
            "race": race,
            "you": {"n": 12, "view": "", "legal": [], "home": 9, "status": "playing"},
        }
    )
    m.apply(
        {"t": "progress", "race": "r1", "ver": 39, "player": "p2", "n": 29, "home": 40, "status": "playing"}
    )
    assert (m.players["p2"].n, m.players["p2"].home, m.players["p2"].status) == (30, 41, "finished")
    assert m.ver == 40 and not m.gap
    m.apply(
        {"t": "progress", "race": "r1", "ver": 41, "player": "p3", "n": 1, "home": 0, "status": "playing"}
    )
    assert m.players["p3"].n == 1 and m.ver == 41


def test_model_follows_a_race():
    m = RaceModel(me="p1")
    players = [
        {"player": "p1", "name": "ada", "ready": True, "n": 0, "home": 0, "status": "ready"},
        {"player": "p2", "name": "bob", "ready": True, "n": 0, "home": 0, "status": "ready"},
    ]
    seed = "s33d"
    com = hashlib.sha256(seed.encode()).hexdigest()
    m.apply({"t": "queued", "game": "fours-up", "seats": 2})
    assert m.status == "queued"
    m.apply(
        {
            "t": "race",
            "race": "r1",
            "ver": 1,
            "game": "fours-up",
            "status": "countdown",
            "seats": 2,
            "starts_at": 1000,
            "deadline": 61000,
            "commitment": com,
            "total": 104,
            "players": players,
        }
    )
    assert m.countdown_ms(400) == 600 and m.race_id == "r1"
    view = deal("fours-up", seed).view_text()
    m.apply(
        {
            "t": "start",
            "race": "r1",
            "ver": 2,
            "starts_at": 1000,
            "deadline": 61000,
            "commitment": com,
            "total": 104,
            "view": view,
            "n": 0,
        }
    )
    assert m.status == "running" and must(m.board).stock == 90 and m.remaining_ms(31000) == 30000
    m.apply(
        {"t": "progress", "race": "OTHER", "ver": 3, "player": "p2", "n": 9, "home": 99, "status": "playing"}
    )
    assert m.players["p2"].home == 0  # another race's event is ignored
    m.apply({"t": "progress", "race": "r1", "ver": 3, "player": "p2", "n": 1, "home": 9, "status": "playing"})
    assert m.players["p2"].home == 9 and not m.gap
    m.apply(
        {
            "t": "ack",
            "race": "r1",
            "n": 1,
            "move": "draw",
            "home": 8,
            "status": "playing",
            "view": view,
            "legal": ["draw"],
        }
    )
    assert m.n == 1 and m.players["p1"].home == 8 and m.legal == ["draw"]
    m.apply(
        {"t": "progress", "race": "r1", "ver": 6, "player": "p2", "n": 2, "home": 10, "status": "playing"}
    )
    assert m.gap  # ver jumped from 3 to 6
    m.apply(
        {
            "t": "state",
            "race": {"race": "r1", "ver": 6, "status": "running", "players": players},
            "you": {"n": 1, "view": view, "legal": ["draw", "t0>t1"], "home": 8, "status": "playing"},
            "events": None,
        }
    )
    assert not m.gap and m.legal == ["draw", "t0>t1"]
    m.apply(
        {
            "t": "end",
            "race": "r1",
            "ver": 7,
            "seed": seed,
            "ranking": [
                {
                    "rank": 1,
                    "player": "p2",
                    "name": "bob",
                    "status": "timeout",
                    "won": False,
                    "home": 10,
                    "moves": 2,
                },
                {
                    "rank": 2,
                    "player": "p1",
                    "name": "ada",
                    "status": "timeout",
                    "won": False,
                    "home": 8,
                    "moves": 1,
                },
            ],
        }
    )
    assert m.status == "finished" and m.commitment_verified is True
    assert m.my_status == "timeout"  # the clock ended our game: no longer "playing"
    m.commitment = "00"
    assert m.commitment_verified is False


def test_home_move():
    from client.tui.board_input import home_move

    legal = ["draw", "r0>t1", "r0>f4", "r0>f5", "f0>f4"]
    assert home_move(legal, "r0") == "r0>f4"
    assert home_move(legal, "f0") is None and home_move(legal, "t3") is None


def test_groups_and_labels_come_from_the_game_facts():
    from protocol.rules.facts import game_facts

    for game_id, facts in game_facts().items():
        text = layout_board(parse_view(deal(game_id, "abc").view_text())).text()
        for col in facts["cols"]:
            for row in col:
                for group in row:
                    assert group["label"] in text, (game_id, group["label"])


def test_runs_move_only_from_building_tableaus():
    from client.tui.board_input import runs_allowed

    assert runs_allowed("fours-up", "t3") and runs_allowed("rouge-et-noir", "t9")
    assert not runs_allowed("racing-aces", "t0") and not runs_allowed("fours-up", "w")
    assert not runs_allowed("fours-up", "t99") and not runs_allowed("klondike", "t0")


def test_a_game_this_version_does_not_know_is_shown_pile_by_pile():
    board = parse_view("klondike f0: t0:AhKs s:#3")
    canvas = layout_board(board)
    assert {c.pile for c in canvas.cells if c.pile} == {"f0", "t0", "s"}
    assert board.total == 5
    assert click(board, None, "t0", 0).selected == ("t0", 1)  # no runs in a game it does not know


def test_an_empty_foundation_shows_what_it_starts_with():
    canvas = layout_board(parse_view(deal("racing-aces", "abc").view_text()))

    def slot(pile: str) -> str:  # the cell under the pile's name label
        label = next(c for c in canvas.cells if c.pile == pile and c.text.strip() == pile)
        return next(c.text for c in canvas.cells if c.pile == pile and c.y == label.y + 1)

    assert [slot(f) for f in ("f0", "f4", "f8", "f12")] == [" A ", " 6 ", " 7 ", " K "]
    canvas = layout_board(parse_view(deal("rouge-et-noir", "abc").view_text()))
    assert slot("f5") == "K…A"


def tie_row(rank: int, name: str, home: int, home_at: int | None, moves: int, won: bool = False) -> dict:
    status = "won" if won else "timeout"
    return {"rank": rank, "player": f"p-{name}", "name": name, "status": status, "won": won, "home": home,
            "moves": moves, "time_ms": None, "home_at_ms": home_at}  # fmt: skip


#: Two ties on cards home broken (by the moment, by moves) and one left (a shared rank);
#: tests/web/test_tie_break.py gives the browser's copy the same ranking.
TIE_RANKING = [
    tie_row(1, "ada", 104, 90_000, 300, won=True),
    tie_row(2, "bob", 60, 61_000, 120),
    tie_row(3, "cy", 60, 75_500, 150),
    tie_row(4, "dee", 40, 20_000, 99),
    tie_row(5, "eve", 40, 20_000, 80),
    tie_row(5, "fay", 40, 20_000, 80),
]


def test_a_tie_on_cards_home_says_what_broke_it() -> None:
    assert tie_break_notes(TIE_RANKING) == [
        "bob ranks above cy with as many cards home (60): reached that count first (1:01.0 against 1:15.5)",
        "dee ranks above eve with as many cards home (40): more moves (99 against 80)",
    ]


def test_a_card_with_no_legal_move_is_not_selected() -> None:
    b = parse_view("racing-aces f0: t0:Kh t1:5c s:#0 w:")
    r = click(b, None, "t0", 0, legal=["t1>f0"])
    assert r.selected is None and r.note == "t0: no legal move from here"
    assert click(b, None, "t1", 0, legal=["t1>f0"]).selected == ("t1", 1)
    assert click(b, None, "t0", 0).selected == ("t0", 1)  # legal moves not known yet: selected
