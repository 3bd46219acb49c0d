"""protocol/ranking.py alone: each case of the ranking rule, the shown times, ties. No I/O."""

from __future__ import annotations

from typing import Any

from protocol import ranking

START = 1_000_000


def row(
    player: str, status: str, home: int, log: list[tuple[int, int]], at: int | None = None, initial: int = 0
) -> dict[str, Any]:
    """A ranking row from a move log of (ms after the start, cards home after the move)."""
    return ranking.entry(
        player=player,
        name=player,
        status=status,
        home=home,
        moves=len(log),
        at=None if at is None else START + at,
        starts_at=START,
        log=[(START + t, h) for t, h in log],
        initial_home=initial,
    )


def order(*rows: dict[str, Any]) -> list[tuple[str, int]]:
    return [(r["player"], r["rank"]) for r in ranking.rank(list(rows))]


def test_winners_first_by_time_whatever_their_moves():
    fast = row("fast", "won", 52, [(t * 10, 52 if t == 99 else 0) for t in range(100)], at=990)
    slow = row("slow", "won", 52, [(100, 0), (2_000, 52)], at=2_000)
    near = row("near", "finished", 51, [(50, 51)], at=60)  # one short, earlier: still after every winner
    assert order(near, slow, fast) == [("fast", 1), ("slow", 2), ("near", 3)]


def test_winners_with_the_same_time_tie():
    a = row("a", "won", 52, [(500, 52)], at=500)
    b = row("b", "won", 52, [(100, 0), (500, 52)], at=500)
    assert order(b, a) == [("a", 1), ("b", 1)]


def test_non_winners_more_cards_home_first():
    many = row("many", "timeout", 30, [(90_000, 30)])
    few = row("few", "finished", 20, [(1_000, 20)], at=2_000)
    assert order(few, many) == [("many", 1), ("few", 2)]


def test_same_count_the_earlier_moment_it_was_reached_first():
    early = row("early", "timeout", 20, [(1_000, 20), (5_000, 20), (9_000, 20)])
    late = row("late", "finished", 20, [(3_000, 20)], at=4_000)
    assert order(late, early) == [("early", 1), ("late", 2)]


def test_a_player_who_played_ranks_above_one_who_did_nothing():
    # Fours Up deals its eight 4s home: finishing at once keeps 8 home with no move
    idle = row("idle", "finished", 8, [], at=300, initial=8)
    played = row("played", "timeout", 8, [(t * 1_000, 8) for t in range(1, 41)], initial=8)
    one = row("one", "finished", 8, [(2_000, 8)], at=2_500, initial=8)
    assert idle["home_at_ms"] == played["home_at_ms"] == one["home_at_ms"] == 0
    assert order(idle, one, played) == [("played", 1), ("one", 2), ("idle", 3)]


def test_a_card_brought_home_beats_any_number_of_moves_without_one():
    brought = row("brought", "finished", 9, [(80_000, 9)], at=81_000, initial=8)
    busy = row("busy", "timeout", 8, [(t * 100, 8) for t in range(1, 500)], initial=8)
    assert order(busy, brought) == [("brought", 1), ("busy", 2)]


def test_equal_on_every_key_share_a_rank_listed_in_a_stable_order():
    a = row("a", "timeout", 5, [(100, 5), (200, 5)])
    b = row("b", "finished", 5, [(100, 5), (900, 5)], at=1_000)  # the finish and the last move do not rank
    c = row("c", "timeout", 1, [(50, 1)])
    assert order(a, b, c) == [("a", 1), ("b", 1), ("c", 3)]
    assert order(b, c, a) == [("a", 1), ("b", 1), ("c", 3)]  # listed by player id


def test_unknown_home_at_counts_as_latest():
    known = {"player": "k", "won": False, "time_ms": None, "home": 5, "home_at_ms": 90_000, "moves": 1}
    unknown = {"player": "u", "won": False, "time_ms": None, "home": 5, "home_at_ms": None, "moves": 500}
    assert [r["player"] for r in ranking.rank([unknown, known])] == ["k", "u"]


def test_the_times_a_row_shows():
    won = row("w", "won", 52, [(100, 0), (700, 52)], at=700)
    fin = row("f", "finished", 10, [(100, 10), (400, 10)], at=2_500)
    out = row("o", "timeout", 10, [(100, 10), (600, 10)])
    idle = row("i", "timeout", 0, [])
    assert (won["time_ms"], won["last_move_ms"]) == (700, 700)
    assert (fin["time_ms"], fin["home_at_ms"], fin["last_move_ms"]) == (2_500, 100, 400)
    assert (out["time_ms"], out["home_at_ms"], out["last_move_ms"]) == (None, 100, 600)
    assert (idle["time_ms"], idle["home_at_ms"], idle["last_move_ms"]) == (None, 0, None)


def test_the_packed_daily_score_follows_the_same_order():
    def result(r: dict[str, Any], total: int) -> ranking.Result:
        return ranking.Result(
            r["status"],
            r["won"],
            r["home"],
            total,
            r["moves"],
            r["time_ms"],
            r["home_at_ms"],
            r["last_move_ms"],
        )

    rows = [
        row("idle", "finished", 8, [], at=300, initial=8),
        row("played", "timeout", 8, [(1_000, 8), (2_000, 8)], initial=8),
        row("nine", "finished", 9, [(5_000, 9)], at=6_000, initial=8),
        row("won", "won", 52, [(9_000, 52)], at=9_000, initial=8),
    ]
    ranked = [r["player"] for r in ranking.rank(rows)]
    by_score = [r["player"] for r in sorted(rows, key=lambda r: ranking.pack(result(r, 52)))]
    assert ranked == by_score == ["won", "nine", "played", "idle"]
