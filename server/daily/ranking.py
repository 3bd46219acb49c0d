"""The daily leaderboard's order, packed into one sorted-set score.

Ranking (DESIGN.md §8, docs/protocol.md `end`, the same as a race's,
``server.races.rank``): winners first, by time from the start to the win
(winners with the same time tie); then everyone else by cards home (more is
better), then by the time that count was first reached (earlier is better),
then fewer moves.

A Redis sorted set orders by a double score, then members (player ids)
byte-wise. A double holds every integer below 2**53 exactly, so the ranking
is packed into a 53-bit integer, lower is better (rank 1 = ``ZRANGE`` index
0)::

    bit 52 ........ 45 | 44 ................ 21 | 20 ............ 0
        missing (8)    |  t (24)                |  moves (21)

- ``missing = total - home`` (0…255; the largest game has 208 cards). A
  player has won exactly when ``missing == 0``, so winners come first and the
  won flag needs no bit of its own.
- ``t`` = ``time_ms`` for a winner (start → win), ``home_at_ms`` for everyone
  else (start → the earliest moment the final home count was reached); ms,
  0…16 777 215 (4 h 39 min; a race lasts at most 2 h). An unknown
  ``home_at_ms`` counts as the largest value.
- ``moves`` 0…2 097 151 (the rate limit allows ~216 000 in 2 h); 0 for a
  winner, whose moves do not rank.

Values above a field's range *saturate* (they compare equal to the largest
value, never overflow into the next field), so order is exact within the
documented ranges and still sensible beyond them. Entries with equal scores
tie: they share a ``rank`` (standard competition ranking, 1, 1, 3, like a
race: ``rank = 1 + ZCOUNT(board, -inf, (score)``) and are listed in player id
order (Redis' tie rule), so the listing order is stable.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

MISSING_BITS = 8
T_BITS = 24
MOVES_BITS = 21
MAX_MISSING = (1 << MISSING_BITS) - 1
MAX_T = (1 << T_BITS) - 1
MAX_MOVES = (1 << MOVES_BITS) - 1
_T_SHIFT = MOVES_BITS
_MISSING_SHIFT = MOVES_BITS + T_BITS
MAX_SCORE = (1 << (MISSING_BITS + T_BITS + MOVES_BITS)) - 1
assert MAX_SCORE == 2**53 - 1


@dataclass(frozen=True, slots=True)
class Result:
    """One finished attempt, as the race's ranking reports it (RankEntry)."""

    status: str  # won, finished, timeout
    won: bool
    home: int
    total: int
    moves: int
    time_ms: int | None  # start → win/finish; nil for a timeout
    home_at_ms: int | None  # start → earliest moment the final home was reached

    def __post_init__(self) -> None:
        if not 0 <= self.home <= self.total:
            raise ValueError(f"home {self.home} outside 0..{self.total}")
        if self.won != (self.home == self.total):
            raise ValueError("won must mean every card home")
        if self.won and self.time_ms is None:
            raise ValueError("a win needs its time_ms")
        for name in ("moves", "time_ms", "home_at_ms"):
            v = getattr(self, name)
            if v is not None and v < 0:
                raise ValueError(f"{name} is negative")

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "won": self.won,
            "home": self.home,
            "total": self.total,
            "moves": self.moves,
            "time_ms": self.time_ms,
            "home_at_ms": self.home_at_ms,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Result:
        return cls(
            status=str(d["status"]),
            won=bool(d["won"]),
            home=int(d["home"]),
            total=int(d["total"]),
            moves=int(d["moves"]),
            time_ms=None if d.get("time_ms") is None else int(d["time_ms"]),
            home_at_ms=None if d.get("home_at_ms") is None else int(d["home_at_ms"]),
        )


def ranking_key(r: Result) -> tuple[int, int, int, int]:
    """The unpacked order, for reference and tests: lower sorts first."""
    if r.won:
        return (0, r.time_ms or 0, 0, 0)
    home_at = MAX_T if r.home_at_ms is None else r.home_at_ms
    return (1, -r.home, home_at, r.moves)


def pack(r: Result) -> int:
    """The 53-bit score of ``r`` (see the module doc); lower ranks higher."""
    missing = min(r.total - r.home, MAX_MISSING)
    if r.won:
        t, moves = r.time_ms or 0, 0
    else:
        t = MAX_T if r.home_at_ms is None else r.home_at_ms
        moves = r.moves
    return (missing << _MISSING_SHIFT) | (min(t, MAX_T) << _T_SHIFT) | min(moves, MAX_MOVES)


def unpack(score: float | int) -> tuple[int, int, int]:
    """``(missing, t, moves)`` of a packed score (Redis returns it as a float)."""
    s = int(score)
    if s != score or not 0 <= s <= MAX_SCORE:
        raise ValueError(f"not a packed score: {score!r}")
    return s >> _MISSING_SHIFT, (s >> _T_SHIFT) & MAX_T, s & MAX_MOVES
