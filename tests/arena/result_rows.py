"""A player's row of a finished race as the arena store applies it (`ArenaStore.apply`), for the
store tests: not won (out of time) with `home` cards home, unless a test says more."""

from __future__ import annotations


def row(player, home, *, moves=5, at=1000):
    return {
        "player": player,
        "name": player.upper(),
        "status": "timeout",
        "won": False,
        "home": home,
        "moves": moves,
        "time_ms": None,
        "home_at_ms": at,
    }
