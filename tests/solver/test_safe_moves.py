"""Why the solver never forces a card home: positions where the card that can
go home, which nothing may ever be placed on where it lies (the waste's top),
must not go home now, or a won game is lost.

Each position was found by trying, along the solver's winning lines of
benchmark deals, every other move home, and keeping one the solver proved
lost; here the win is re-played by the engine and the loss after the move
home is checked by an independent exhaustive search (solver_helpers).
"""

from __future__ import annotations

import pytest
from solver_helpers import exhaustive

from protocol import rules
from protocol.solver import solve

# (position, the move home that loses it)
LOSING_MOVES_HOME = {
    # Racing Aces: the waste's Qs onto the Aces pile f3 (top Jh) takes the
    # slot the Kings pile f15's Qh needed (f15>f3 frees f15 for the Qs).
    "racing-aces": (
        "racing-aces f0:Ah2c3s4c5h6c7h8c9dTdJcQdKs f1:Ac2s3d4c5d6s7s8h9hThJhQsKh f2:Ac2h3d4h5s6h7s8h9dThJdQdKh f3:Ad2c3h4s5h6s7d8d9cTdJh f4:6c5s4d3h2dAh f5:6d5c4s3c2dAc f6:6d5d4h3c2sAh f7:6d5c4h3s2hAd f8:7d8c9sTcJsQcKd f9:7c8d9cTdJsQcKs f10:7c8s9sThJhQsKd f11:7d8c9hTcJdQcKs f12:KcQhJcTs9s8s7c6h5c4d3c2sAs f13:KcQhJdTs9h8h7s6c5s4s3s2cAd f14:KdQdJsTs9c8d7h6s5h4c3h2dAs f15:KhQh r0: r1: r2: t0:3d t1:7h t2:5d t3:8s t4:6h t5:4d s:Kc w:Jc2hAsTc9dQs",
        "w>f3",
    ),
    # Double Aces and Kings: the waste's Ks onto the empty Kings pile f15;
    # the win draws first (the Ks stays in the waste for now).
    "double-aces-and-kings": (
        "double-aces-and-kings f0:Ac2h3c4c5c6d7h8d9cThJsQcKc f1:Ad2d3c4c5h6s7d8h9cThJhQhKh f2:Ac2c3h4d5d6d7c8d9sTdJdQsKd f3:As2c3s4d5s6d7h8s9dTcJhQhKh f4:Ah2d3h4h5d6h7d8s9hTcJdQhKs f5:As2c3d4h5c6c7h8d9dTsJsQhKh f6:Ad2h3d4h5h6d7s8c9hTdJcQdKh f7:Ah2d3c4c5d6h7s8s9sTsJsQcKd f8:KdQcJdTs9d8h7d6s5h4s3s2sAd f9:KcQsJhTd9s8c7s6s5d4s3s2dAh f10:KcQsJcTc9c8c7d6s5c4s3d2hAs f11:KcQcJdTs9d8h7c6h5s4h3c2sAc f12:KsQdJsTc9h8d7c6h5h4d3s2hAh f13:Kd f14:Ks f15: r0: r1: r2: r3: t0:Th t1:Th t2:Td t3:3h t4:5c t5:9h t6:9s t7:Ac s:Jc3h3d2c5s4d w:7s4s4cAsAd2sJh8c5sQs6cQdQd2s6c8s9c7hJc6c7c8hKs",
        "w>f15",
    ),
}


@pytest.mark.parametrize("game", sorted(LOSING_MOVES_HOME))
def test_a_card_home_can_lose_a_won_game(game: str) -> None:
    text, move = LOSING_MOVES_HOME[game]
    start = rules.from_text(text)
    won = solve(start, nodes=20_000)
    assert won.status == "won"
    g = start.copy()
    for m in won.line:
        g.play(m)
    assert g.won
    assert move != won.line[0]
    after = start.copy()
    after.play(move)  # legal: a card from the waste's top to a foundation
    parsed = start.game.parse_cache[move]
    assert isinstance(parsed, tuple)  # a card's move, not the draw
    src, _k, dst = parsed
    assert src == start.game.waste_idx and start.game.is_found[dst]
    assert exhaustive(after, limit=200_000) is False
    assert solve(after, nodes=20_000).status == "lost"
