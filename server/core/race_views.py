"""What the wire sees of a race: its snapshot, its `race_list` entry, its published proof."""

from __future__ import annotations

from typing import Any

from protocol import messages as m

from .record import FINISHED, Race, is_bot


def snapshot(race: Race) -> dict[str, Any]:
    """The `race` message fields (docs/protocol.md §3): the seed only once finished.

    The players and the ranking are the protocol's structs, not plain maps, so that they
    are encoded as the protocol says: `berserk` only when true (optional, absent when
    false), `last_move_ms` always (int or nil)."""
    return {
        "race": race.race,
        "ver": race.ver,
        "game": race.game,
        "status": race.status,
        "private": race.private,
        "seats": race.seats,
        "time_limit_s": race.time_limit_s,
        "host": race.host,
        "created": race.created,
        "starts_at": race.starts_at,
        "deadline": race.deadline,
        "commitment": race.commitment,
        "seed": race.seed if race.status == FINISHED and not race.sealed else None,
        "total": race.total,
        "players": [
            m.PlayerInfo(
                player=p.player,
                name=p.name,
                ready=p.ready,
                n=p.n,
                home=p.home,
                status=p.status,
                at=p.at,
                berserk=p.berserk,
                account=p.account,
            )
            for p in race.players
        ],
        "ranking": [m.RankEntry(**e) for e in race.ranking or []] if race.status == FINISHED else None,
        "certified": race.certified,
        "rated": race.rated,
        "daily": race.sealed,
        "arena": race.arena or None,
    }


def published_proof(race: Race, day_closed: bool = False) -> tuple[list[str] | None, int | None]:
    """(proof, par) of `end` and `replay`: a certified deal's winning line and its
    length, once finished; for a daily attempt's race, whose seed is sealed, only once
    its day closed (`day_closed`: a `replay`, which is refused before the close)."""
    if race.status != FINISHED or (race.sealed and not day_closed) or not race.certified:
        return None, None
    line = race.proof.split()
    return line, len(line)


def summary(race: Race) -> dict[str, Any]:
    """One entry of `race_list`."""
    return {
        "race": race.race,
        "game": race.game,
        "status": race.status,
        "players": [
            m.SummaryPlayer(
                name=p.name, home=p.home, status=p.status, account=p.account, bot=is_bot(p.player)
            )
            for p in race.players
        ],
        "seats": race.seats,
        "total": race.total,
        "starts_at": race.starts_at,
        "deadline": race.deadline,
        "spectators": max(0, race.spectators),
        "rated": race.rated,
    }
