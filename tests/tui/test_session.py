"""The offline session's race end: the ranking is the protocol's rule."""

from __future__ import annotations

from client.tui.offline import LocalSession
from client.tui.offline_race import Seat
from protocol.rules.engine import deal

SEED = "0123456789abcdef0123456789abcdef"


def _seat(player: str, status: str, moves: list[str], at: int) -> Seat:
    game = deal("fours-up", SEED)
    s = Seat(player, player, game=game, status=status)
    s.initial_home = game.cards_home
    for i, move in enumerate(moves):
        game.play(move)
        s.n += 1
        s.home_log.append((at - len(moves) + i + 1, game.cards_home))
    s.end_at = at if status == "finished" else None
    return s


def test_equal_results_share_a_rank_and_winners_and_home_order_the_rest():
    session = LocalSession()
    race = session._new_race("fours-up", 4, 60, False, session.player)
    race.starts_at = 1_000
    race.status = "running"
    race.seats = [
        _seat("slow", "timeout", ["draw", "draw"], 9_000),
        _seat("a", "finished", [], 2_000),
        _seat("b", "finished", [], 3_000),  # declared later, but a finish time does not rank
        _seat("c", "finished", ["draw"], 4_000),
    ]
    race.end()
    ranks = {r["player"]: r["rank"] for r in race.ranking or []}
    # the same cards home since the deal (the 4s): those who played rank above
    # those who did nothing, more moves first; no moves: a shared rank (1, 2, 3, 3)
    assert ranks == {"slow": 1, "c": 2, "a": 3, "b": 3}
    rows = {r["player"]: r for r in race.ranking or []}
    assert rows["a"]["home_at_ms"] == 0 and rows["a"]["time_ms"] == 1_000
    assert rows["slow"]["time_ms"] is None and rows["slow"]["last_move_ms"] == 8_000
    assert rows["a"]["last_move_ms"] is None
    end = session.events.get_nowait()
    assert end["t"] == "end" and end["ranking"] == race.ranking
