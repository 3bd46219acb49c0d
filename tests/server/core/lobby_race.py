"""A race in its lobby for the core's unit tests: host p1 (ada) in seat 0, created at 1000 ms."""

from __future__ import annotations

from protocol import rules
from server.core import races as R


def lobby_race(
    rid: str = "r1",
    *,
    game: str = "fours-up",
    seats: int = 2,
    private: bool = False,
    time_limit_s: int = 60,
) -> R.Race:
    return R.new_race(
        race=rid,
        game=game,
        total=rules.GAMES[game].total,
        seats=seats,
        time_limit_s=time_limit_s,
        private=private,
        host="p1",
        host_name="ada",
        now=1000,
        seed="s",
    )
