"""Solvers over the rules engine: pure functions, no I/O.

``search``    the full-knowledge solver (``solve``): knows the whole deal and
              answers won (with a winning line), lost (proved) or unknown
``analysis``  post-race analysis: where a player's game stopped being winnable
"""

from __future__ import annotations

from .analysis import Analysis, analyze, analyze_from
from .search import DEFAULT_NODES, METHOD, SolveResult, position_key, solve

__all__ = [
    "Analysis",
    "analyze",
    "analyze_from",
    "DEFAULT_NODES",
    "METHOD",
    "SolveResult",
    "position_key",
    "solve",
]
