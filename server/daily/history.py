"""A player's daily history per game: days played, wins, streaks.

Plain functions over the list of days a player has a recorded attempt on.

- A **play streak** is a run of consecutive UTC days with an attempt; a
  **win streak** a run of consecutive days won (a day without an attempt, or
  an attempt not won, ends it).
- A streak is **current** when its last day is today, or yesterday while
  today's challenge is still unplayed (the player can still extend it);
  otherwise the current streak is 0. ``best`` is the longest run ever.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Stats:
    played: int
    wins: int
    streak: int  # current play streak
    best_streak: int
    win_streak: int  # current win streak
    best_win_streak: int

    def to_dict(self) -> dict[str, int]:
        return {
            "played": self.played,
            "wins": self.wins,
            "streak": self.streak,
            "best_streak": self.best_streak,
            "win_streak": self.win_streak,
            "best_win_streak": self.best_win_streak,
        }


def _runs(days: list[int]) -> tuple[int, int]:
    """(length of the run ending at the last day, longest run) of sorted unique days."""
    best = cur = 0
    prev: int | None = None
    for d in days:
        cur = cur + 1 if prev is not None and d == prev + 1 else 1
        best = max(best, cur)
        prev = d
    return cur, best


def stats(days: Iterable[tuple[int, bool]], today: int) -> Stats:
    """Stats of ``days`` — (day number, won) pairs — as seen on day ``today``.

    Days after ``today`` are ignored (they cannot exist with a sane clock).
    """
    won_by_day: dict[int, bool] = {}
    for d, won in days:
        if d <= today:
            won_by_day[d] = won_by_day.get(d, False) or bool(won)
    played = sorted(won_by_day)
    wins = sorted(d for d, w in won_by_day.items() if w)
    cur, best = _runs(played)
    wcur, wbest = _runs(wins)
    if not played or played[-1] < today - 1:
        cur = 0
    if not wins or wins[-1] < today - 1:
        wcur = 0
    elif wins[-1] == today - 1 and today in won_by_day:
        wcur = 0  # played today without winning: the win streak is broken
    return Stats(len(played), len(wins), cur, best, wcur, wbest)
