"""A pure simulation of an arena over pairing and scoring: who lands in the smaller races.

No Redis, no sockets: the arena's state is what the store keeps (standings, free since,
last race, smaller races), moved forward tick by tick the way every server process's loop
does it: pair the free players (``pairing.pair``), run each race for a drawn length, score
it (``scoring.score_race``) and free its players at its end. Races last from half a minute
to the full five-minute clock: a race ends when its last player is done, so races formed
together end apart, and a smaller race (fewer players to wait for) tends to end sooner.

Measured with it (docs/arenas.md "Smaller races"): in a 3-seat arena of 5 players one
player sat in a smaller race in 99% of their races, and about 95% of the smaller races
formed when their players were the only ones free, so a pairing rule alone cannot
choose who sits in them.

``python -m tests.arena.leftover_sim`` prints, for a few arena sizes, each player's share
of smaller races and their points per race.
"""

from __future__ import annotations

import heapq
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from server.arena.pairing import Free, Window, pair
from server.arena.scoring import Standing, after_race, score_race, standings

TICK_MS = 1_000
WINDOW = Window(base_window=4, widen_per_s=10.0, max_wait_ms=3_000)

Pairing = Callable[[Sequence[Free], int, Window], list[list[Free]]]


@dataclass
class Tally:
    """One player's races over the simulation."""

    races: int = 0
    smaller: int = 0
    points: int = 0
    smaller_points: int = 0  # of `points`, scored in smaller races


@dataclass
class Outcome:
    seats: int
    tallies: dict[str, Tally] = field(default_factory=dict)
    final: list[str] = field(default_factory=list)  # player ids, final standings order

    def smaller_share(self, player: str) -> float:
        t = self.tallies[player]
        return t.smaller / t.races if t.races else 0.0

    def points_per_race(self, smaller: bool) -> float:
        """Points per race over every player, in smaller races or in full ones."""
        points = sum(
            t.smaller_points if smaller else t.points - t.smaller_points for t in self.tallies.values()
        )
        races = sum(t.smaller if smaller else t.races - t.smaller for t in self.tallies.values())
        return points / races

    def smaller_races(self) -> int:
        """Seats taken in smaller races over all players (a race of 2 counts twice)."""
        return sum(t.smaller for t in self.tallies.values())


def race_rows(
    rng: random.Random, players: Sequence[str], skill: dict[str, float]
) -> tuple[list[dict[str, object]], int]:
    """Ranking rows of one race, and when it ends (its last player done): a better player
    wins the deal more often; a player who does not win gives up or runs out of clock."""
    rows: list[dict[str, object]] = []
    done = []
    for p in players:
        if rng.random() < skill[p]:
            t = rng.randint(40_000, 300_000)
            rows.append({"player": p, "won": True, "home": 52, "moves": 90, "time_ms": t, "home_at_ms": t})
        else:
            t = rng.randint(30_000, 300_000)
            rows.append(
                {
                    "player": p,
                    "won": False,
                    "home": rng.randint(5, 51),
                    "moves": rng.randint(20, 90),
                    "time_ms": t,
                    "home_at_ms": rng.randint(1_000, t),
                }
            )
        done.append(t)
    return rows, max(done)


def simulate(
    players: int,
    seats: int,
    *,
    races_each: int = 200,
    seed: int = 0,
    pairing: Pairing = pair,
    equal: bool = False,
) -> Outcome:
    """Run an arena of ``players`` (all joined at the start, none leaving) until the
    players have played ``races_each`` races on average.

    ``equal``: every player equally strong (otherwise each wins the deal with their own
    chance, from 0.2 to 0.6).
    """
    rng = random.Random(seed)
    ids = [f"p{i:02d}" for i in range(players)]
    skill = {p: 0.4 if equal else rng.uniform(0.2, 0.6) for p in ids}
    standing = {p: Standing(player=p, name=p) for p in ids}
    free_since = dict.fromkeys(ids, 0)
    last: dict[str, str] = {}
    smaller: dict[str, int] = {}
    out = Outcome(seats, {p: Tally() for p in ids})
    # (ends, race, players, rows), a heap
    running: list[tuple[int, str, tuple[str, ...], list[dict[str, object]]]] = []
    formed = 0
    now = 0
    while formed < races_each * players // seats:
        while running and running[0][0] <= now:
            _, race, members, rows = heapq.heappop(running)
            points = score_race(rows, {p: standing[p].streak for p in members})
            small = len(members) < seats
            for rp in points:
                standing[rp.player] = after_race(standing[rp.player], rp, now)
                tally = out.tallies[rp.player]
                tally.races += 1
                tally.points += rp.points
                if small:
                    tally.smaller += 1
                    tally.smaller_points += rp.points
                    smaller[rp.player] = smaller.get(rp.player, 0) + 1
                free_since[rp.player] = now
                last[rp.player] = race
        position = {s.player: i for i, (_, s) in enumerate(standings(list(standing.values())))}
        free = [Free(p, position[p], now - since, last.get(p, "")) for p, since in free_since.items()]
        for group in pairing(free, seats, WINDOW):
            formed += 1
            race = f"r{formed:05d}"
            members = tuple(f.player for f in group)
            rows, lasts = race_rows(rng, members, skill)
            heapq.heappush(running, (now + lasts, race, members, rows))
            for p in members:
                del free_since[p]
        now += TICK_MS
    out.final = [s.player for _, s in standings(list(standing.values()))]
    return out


def report(players: int, seats: int, **kw: object) -> str:
    o = simulate(players, seats, **kw)  # type: ignore[arg-type]
    lines = [f"{players} players, {seats} seats {kw}: {o.smaller_races()} seats in smaller races"]
    for rank, p in enumerate(o.final, 1):
        t = o.tallies[p]
        full = t.races - t.smaller
        lines.append(
            f"  {rank:2d}. {p} races {t.races:4d}  smaller {t.smaller:4d} ({o.smaller_share(p):5.1%})"
            f"  points/race {t.points / max(1, t.races):.2f}"
            f"  in smaller {t.smaller_points / max(1, t.smaller):.2f}"
            f"  in full {(t.points - t.smaller_points) / max(1, full):.2f}"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    for n, s in ((5, 3), (7, 4), (5, 4), (10, 4), (11, 3)):
        print(report(n, s))
