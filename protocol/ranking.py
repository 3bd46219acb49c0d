"""The ranking rule of a race, in one place (docs/protocol.md, the `end` message).

A finished race ranks its players so:

1. Winners first (every card home), by the time from the start to the win;
   winners with the same time tie, whatever their moves.
2. Everyone else after every winner, by
   a. more cards home (the deal's own home cards, such as Fours Up's eight
      4s, count alike for everyone on the deal, so this is more cards played
      home by the player's own moves);
   b. then the earlier moment that final count was first reached
      (``home_at_ms``; 0 when the player brought no card home beyond the
      deal's, since the deal already had that count; an unknown moment
      counts as the latest);
   c. then **more** moves. This is what makes play count: a player who made
      no move at all has the fewest, so among players with the same cards
      home (Fours Up: finishing at once, with the 4s home from the deal,
      against playing on without bringing another card home) the one who
      played ranks above the one who did nothing.

Entries with equal keys share a rank (standard competition ranking: 1, 1, 3),
and are listed by player id, so the order is deterministic.

The time a ranking shows ("Time") is not a ranking key for non-winners: it
is the time to win for a winner, the moment of the declaration for a player
who finished (``time_ms``) and the player's last move for one whose clock ran
out (``last_move_ms``, nil with no move).

Everything here is pure and typed over plain data, so the server, the daily
leaderboard and the clients (``verify``, the TUI) rank the same way:

- ``home_at``, ``last_move``, ``entry`` and ``rank``: one race's ranking rows, as the
  ``end`` message carries them (``RankEntry`` fields);
- ``sort_key``: the order itself, for checking a ranking someone else made;
- ``Result``, ``pack`` and ``unpack``: the same order packed into one 53-bit
  integer, the score of the daily leaderboard's Redis sorted set.

The daily score
---------------

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
- ``moves``: ``2 097 151 - moves`` (more moves rank higher), moves 0…2 097 151
  (the rate limit allows ~216 000 in 2 h); 0 for a winner, whose moves do not
  rank.

Values above a field's range *saturate* (they compare equal to the largest
value, never overflow into the next field), so order is exact within the
documented ranges and still sensible beyond them. Entries with equal scores
tie: they share a ``rank`` (``rank = 1 + ZCOUNT(board, -inf, (score)``) and
are listed in player id order (Redis' tie rule), so the listing order is
stable.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

# Player statuses that end a race for that player (docs/protocol.md §3).
WON, DECLARED, TIMEOUT = "won", "finished", "timeout"

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

SortKey = tuple[int, float, float, int]

# --- the order ------------------------------------------------------------------------


def sort_key(won: bool, time_ms: int | None, home: int, home_at_ms: int | None, moves: int) -> SortKey:
    """The ranking order: lower sorts first, equal keys share a rank."""
    if won:
        return (0, time_ms or 0, 0, 0)
    return (1, -home, float("inf") if home_at_ms is None else home_at_ms, -moves)


def entry_key(e: Mapping[str, Any]) -> SortKey:
    """``sort_key`` of one ranking row (a ``RankEntry`` as a dict)."""
    return sort_key(bool(e["won"]), e["time_ms"], int(e["home"]), e.get("home_at_ms"), int(e["moves"]))


# --- one race's ranking ---------------------------------------------------------------


def home_at(starts_at: int, final_home: int, log: Iterable[tuple[int, int]], initial_home: int = 0) -> int:
    """ms from the start to the earliest moment `final_home` cards were home.

    `log` is the player's moves as (time, cards home after the move), oldest
    first; `initial_home` the cards home in the deal (Fours Up deals its 4s home).
    """
    if final_home == initial_home:
        return 0  # reached at the start
    for at, home in log:
        if home == final_home:
            return at - starts_at
    return 0  # unreachable for a consistent log


def last_move(starts_at: int, log: Sequence[tuple[int, int]]) -> int | None:
    """ms from the start to the player's last move, None when they made none."""
    return log[-1][0] - starts_at if log else None


def entry(
    *,
    player: str,
    name: str,
    status: str,
    home: int,
    moves: int,
    at: int | None,
    starts_at: int,
    log: Sequence[tuple[int, int]],
    initial_home: int = 0,
) -> dict[str, Any]:
    """One player's unranked row: `at` is when their status last changed (the win or declaration)."""
    won = status == WON
    return {
        "player": player,
        "name": name,
        "status": status,
        "won": won,
        "home": home,
        "moves": moves,
        "time_ms": (at - starts_at) if status in (WON, DECLARED) and at is not None else None,
        "home_at_ms": home_at(starts_at, home, log, initial_home),
        "last_move_ms": last_move(starts_at, log),
    }


def rank(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The rows sorted by the rule, each with its ``rank`` first; equal keys share a
    rank and are listed by player id (as on the daily board)."""
    keyed = sorted(((entry_key(row), row) for row in rows), key=lambda kr: (kr[0], str(kr[1]["player"])))
    out: list[dict[str, Any]] = []
    prev: SortKey | None = None
    for i, (k, row) in enumerate(keyed):
        rank_no = out[-1]["rank"] if k == prev else i + 1
        prev = k
        out.append({"rank": rank_no, **row})
    return out


# --- the daily leaderboard's packed score ---------------------------------------------


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
    last_move_ms: int | None = None  # start → the last move; shown, never ranked

    def __post_init__(self) -> None:
        if not 0 <= self.home <= self.total:
            raise ValueError(f"home {self.home} outside 0..{self.total}")
        if self.won != (self.home == self.total):
            raise ValueError("won must mean every card home")
        if self.won and self.time_ms is None:
            raise ValueError("a win needs its time_ms")
        for name in ("moves", "time_ms", "home_at_ms", "last_move_ms"):
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
            "last_move_ms": self.last_move_ms,
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
            last_move_ms=None if d.get("last_move_ms") is None else int(d["last_move_ms"]),
        )


def ranking_key(r: Result) -> SortKey:
    """The order ``pack`` encodes, unpacked (for tests): ``sort_key`` with the field saturation."""
    home_at_ms = MAX_T if r.home_at_ms is None else r.home_at_ms
    return sort_key(r.won, r.time_ms, r.home, home_at_ms, min(r.moves, MAX_MOVES))


def pack(r: Result) -> int:
    """The 53-bit score of ``r`` (see the module doc); lower ranks higher."""
    missing = min(r.total - r.home, MAX_MISSING)
    if r.won:
        t, moves = r.time_ms or 0, 0
    else:
        t = MAX_T if r.home_at_ms is None else r.home_at_ms
        moves = MAX_MOVES - min(r.moves, MAX_MOVES)
    return (missing << _MISSING_SHIFT) | (min(t, MAX_T) << _T_SHIFT) | min(moves, MAX_MOVES)


def unpack(score: float | int) -> tuple[int, int, int]:
    """``(missing, t, moves)`` of a packed score (Redis returns it as a float);
    ``moves`` is the stored field, ``MAX_MOVES - moves`` for a non-winner."""
    s = int(score)
    if s != score or not 0 <= s <= MAX_SCORE:
        raise ValueError(f"not a packed score: {score!r}")
    return s >> _MISSING_SHIFT, (s >> _T_SHIFT) & MAX_T, s & MAX_MOVES
