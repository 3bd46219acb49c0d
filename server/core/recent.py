"""A player's recent races (docs/protocol.md §9 `recent`): what a finished race leaves in each
of its players' lists, as plain data (no I/O; server/storage/recent.py keeps the lists).

One entry per person in the final ranking: bots keep no list (nobody comes back as a
bot). The entry tells the player's own result and only facts every player of the race
already had from `end` (the game, the number of players); never the seed, whose
secrecy a daily attempt keeps after its end, and which `replay` gives anyway.
"""

from __future__ import annotations

from protocol import messages as m

from ..daily.days import day_of
from .record import FINISHED, Race, is_bot

# The kinds of race, checked in this order: a race is of the first kind that fits.
DAILY = "daily"  # a daily challenge attempt (sealed)
ARENA = "arena"  # paired by an arena
BOT = "bot"  # any other race with a bot seated (a quick-match that found nobody, `bot`)
QUICK = "quick"  # formed by the quick-match (first-come or rated)
PRIVATE = "private"  # created private (its invite holders only)
PUBLIC = "public"  # created public
KINDS = (DAILY, ARENA, BOT, QUICK, PRIVATE, PUBLIC)


def kind(race: Race) -> str:
    """The race's kind as its record tells it (KINDS, first that fits)."""
    if race.sealed:
        return DAILY
    if race.arena:
        return ARENA
    if any(is_bot(p.player) for p in race.players):
        return BOT
    if race.quick:
        return QUICK
    return PRIVATE if race.private else PUBLIC


def entries(race: Race) -> dict[str, m.RecentRace]:
    """Player id -> their entry, for each person ranked in a finished race ({} otherwise)."""
    if race.status != FINISHED or race.ended is None:
        return {}
    ranking = race.ranking or []
    what = kind(race)
    out: dict[str, m.RecentRace] = {}
    for row in ranking:
        pid = str(row["player"])
        if is_bot(pid):
            continue
        out[pid] = m.RecentRace(
            race=race.race,
            game=race.game,
            kind=what,
            at=race.ended,
            rank=int(row["rank"]),
            players=len(ranking),
            status=str(row["status"]),
            home=int(row["home"]),
            total=race.total,
            moves=int(row["moves"]),
            time_ms=None if row.get("time_ms") is None else int(row["time_ms"]),
            rated=race.rated,
            arena=race.arena or None,
            # The day of its creation: an attempt cut to the close ends on the next day's first ms.
            date=day_of(race.created) if what == DAILY else None,
            # A daily attempt is stored private (no invite, no spectators) but its replay is
            # anyone's once its day closes (privacy.py): `private` promises players-only.
            private=race.private and not race.sealed,
        )
    return out
