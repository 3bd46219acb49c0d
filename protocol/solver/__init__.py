"""Solvers over the rules engine: pure functions, no I/O.

``search``    the full-knowledge solver (``solve``): knows the whole deal and
              answers won (with a winning line), lost (proved) or unknown
``positions`` what every search here counts as one position (``position_key``) and
              the moves it tries first (``ordered_moves``)
``inplace``   a legal move played on a position in place and taken back (the
              searches' children)
``rollout``   a greedy rollout that knows the deal, tried first in Fours Up
``analysis``  post-race analysis: where a player's game stopped being winnable
``player``    the player-side search (``best_move``): sees only the player's view
"""

from __future__ import annotations

from .analysis import ANALYSIS_NODES, Analysis, analyze, analyze_from
from .player import DEFAULT_HINT_NODES, best_move, visible_game
from .positions import position_key
from .search import DEFAULT_NODES, METHOD, SolveResult, solve

__all__ = [
    "DEFAULT_HINT_NODES",
    "best_move",
    "visible_game",
    "ANALYSIS_NODES",
    "Analysis",
    "analyze",
    "analyze_from",
    "DEFAULT_NODES",
    "METHOD",
    "SolveResult",
    "position_key",
    "solve",
]
