"""Arena points and standings order (pure; docs/arenas.md has the tables).

Points of one race
------------------
A race of ``n`` players (2 to 4) is ranked by the race rule
(``protocol.ranking``: winners by time, then cards home, ...; equal results
share a rank). Each player then scores:

- **placement** ``n + 1 - rank``: 2 / 1 in a 2-seat race, 4 / 3 / 2 / 1 in a
  4-seat race; players sharing a rank share its points;
- **finish bonus** +1 for finishing the deal (every card home, ``won``);
- **streak**: a player *on fire* (the two previous races of this arena
  were wins) scores the above doubled;
- **berserk** +1 (never doubled) for a win by a player who took half the
  clock, in arenas that allow it.

A *win* is a rank 1 shared with nobody. A player who made no move in the
race (an absent player) scores 0, whatever their rank.

Streak: two wins in a row set a player on fire; every race that is not a
win puts the fire out and restarts the count.

Standings order
---------------
More points first; equal points: fewer races (a better average per race);
then whoever reached their points total earliest (ms from the arena start;
for 0 points, the moment of joining). Players equal on all three share a
rank and are listed by player id. ``pack`` packs that order into one
53-bit sorted-set score, lower is better.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from protocol import ranking

FINISH_BONUS = 1
BERSERK_BONUS = 1
FIRE_AFTER = 2  # wins in a row that set a player on fire


@dataclass(frozen=True, slots=True)
class RacePoints:
    """One player's score of one race, with the parts that make it."""

    player: str
    rank: int
    win: bool
    placement: int
    finish: int
    fire: bool
    berserk: int
    points: int
    streak: int  # wins in a row after this race


def placement_points(rank: int, n: int) -> int:
    """``n + 1 - rank``: the last of ``n`` gets 1, the first ``n``."""
    if not 1 <= rank <= n:
        raise ValueError(f"rank {rank} outside 1..{n}")
    return n + 1 - rank


def played(row: Mapping[str, Any]) -> bool:
    """A player took part: made a move (a win always took moves)."""
    return bool(row["won"]) or int(row["moves"]) > 0


def rerank(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The rows ranked by the race rule, any ``rank`` they carried dropped first."""
    return ranking.rank([{k: v for k, v in r.items() if k != "rank"} for r in rows])


def score_race(
    rows: Sequence[Mapping[str, Any]],
    streaks: Mapping[str, int],
    berserk: Collection[str] = (),
) -> list[RacePoints]:
    """Points of every player of one finished race, in ranking order.

    ``rows``: the race's ranking rows (``RankEntry`` maps: player, won, home,
    moves, time_ms, home_at_ms; ``rank`` is recomputed by
    ``protocol.ranking.rank``, never trusted). ``streaks``: each player's
    wins in a row before this race (absent = 0). ``berserk``: the players
    who took half the clock (empty where the arena does not allow it).
    """
    ranked = rerank(rows)
    n = len(ranked)
    if len({r["player"] for r in ranked}) != n:
        raise ValueError("a player ranked twice")
    firsts = sum(1 for r in ranked if r["rank"] == 1)
    out = []
    for r in ranked:
        player = str(r["player"])
        rank_no = int(r["rank"])
        present = played(r)
        win = present and rank_no == 1 and firsts == 1
        fire = streaks.get(player, 0) >= FIRE_AFTER
        place = placement_points(rank_no, n) if present else 0
        finish = FINISH_BONUS if bool(r["won"]) else 0
        bz = BERSERK_BONUS if win and player in berserk else 0
        points = (place + finish) * (2 if fire else 1) + bz
        out.append(
            RacePoints(
                player=player,
                rank=rank_no,
                win=win,
                placement=place,
                finish=finish,
                fire=fire,
                berserk=bz,
                points=points,
                streak=streaks.get(player, 0) + 1 if win else 0,
            )
        )
    return out


# --- one player's standing ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Standing:
    """A player's standing in an arena. Times are ms from the arena start."""

    player: str
    name: str
    points: int = 0
    races: int = 0
    wins: int = 0
    streak: int = 0
    reached_ms: int = 0  # when `points` was first reached (joining, for 0)

    @property
    def fire(self) -> bool:
        return self.streak >= FIRE_AFTER

    def to_dict(self) -> dict[str, Any]:
        return {
            "player": self.player,
            "name": self.name,
            "points": self.points,
            "races": self.races,
            "wins": self.wins,
            "streak": self.streak,
            "reached_ms": self.reached_ms,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Standing:
        return cls(
            player=str(d["player"]),
            name=str(d["name"]),
            points=int(d["points"]),
            races=int(d["races"]),
            wins=int(d["wins"]),
            streak=int(d["streak"]),
            reached_ms=int(d["reached_ms"]),
        )


def joined(player: str, name: str, at_ms: int) -> Standing:
    """The standing of a player who just joined, ``at_ms`` after the arena start
    (0 for a join before the start)."""
    return Standing(player=player, name=name, reached_ms=max(0, at_ms))


def after_race(s: Standing, rp: RacePoints, at_ms: int) -> Standing:
    """``s`` after the race scored ``rp``, applied ``at_ms`` after the arena start."""
    return Standing(
        player=s.player,
        name=s.name,
        points=s.points + rp.points,
        races=s.races + 1,
        wins=s.wins + (1 if rp.win else 0),
        streak=rp.streak,
        reached_ms=max(0, at_ms) if rp.points > 0 else s.reached_ms,
    )


def order_key(s: Standing) -> tuple[int, int, int]:
    """The standings order, unpacked: lower sorts first, equal keys share a rank."""
    return (-s.points, s.races, s.reached_ms)


# --- the packed sorted-set score ------------------------------------------------------
#
#   bit 52 ........... 38 | 37 ........ 27 | 26 ................. 0
#       MAX_POINTS-points |  races (11)    |  reached_ms (27)
#
# Lower is better. Fields saturate at their maximum (never overflow into the
# next field): points up to 32 767, races up to 2 047, reached_ms up to
# 134 217 727 (37 h; arenas last at most 24 h plus the grace).

POINTS_BITS, RACES_BITS, REACHED_BITS = 15, 11, 27
MAX_POINTS = (1 << POINTS_BITS) - 1
MAX_RACES = (1 << RACES_BITS) - 1
MAX_REACHED = (1 << REACHED_BITS) - 1
_RACES_SHIFT = REACHED_BITS
_POINTS_SHIFT = REACHED_BITS + RACES_BITS
assert POINTS_BITS + RACES_BITS + REACHED_BITS == 53


def pack(s: Standing) -> int:
    """The 53-bit score of ``s``; lower ranks higher, equal scores tie."""
    points = min(max(s.points, 0), MAX_POINTS)
    races = min(s.races, MAX_RACES)
    reached = min(max(s.reached_ms, 0), MAX_REACHED)
    return ((MAX_POINTS - points) << _POINTS_SHIFT) | (races << _RACES_SHIFT) | reached


def unpack(score: float | int) -> tuple[int, int, int]:
    """``(points, races, reached_ms)`` of a packed score (Redis returns a float)."""
    v = int(score)
    if v != score or not 0 <= v < 1 << 53:
        raise ValueError(f"not a packed score: {score!r}")
    return MAX_POINTS - (v >> _POINTS_SHIFT), (v >> _RACES_SHIFT) & MAX_RACES, v & MAX_REACHED


def standings(entries: Sequence[Standing]) -> list[tuple[int, Standing]]:
    """``entries`` in standings order with their competition rank (1, 1, 3), ties by player id."""
    ordered = sorted(entries, key=lambda s: (order_key(s), s.player))
    out: list[tuple[int, Standing]] = []
    for i, s in enumerate(ordered):
        rank_no = out[-1][0] if out and order_key(out[-1][1]) == order_key(s) else i + 1
        out.append((rank_no, s))
    return out
