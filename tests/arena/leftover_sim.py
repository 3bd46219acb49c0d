"""A pure simulation of an arena over pairing and scoring: who lands in the smaller races.

No Redis, no sockets: the arena's state is what the store keeps (standings, free since,
last race and how many it had), moved forward tick by tick the way every server process's loop
does it: pair the free players (``pairing.pair``), run each race for a drawn length, score
it (``scoring.score_race``) and free its players at its end. Races last from half a minute
to the full five-minute clock: a race ends when its last player is done, so races formed
together end apart, and a smaller race (fewer players to wait for) tends to end sooner.

Measured with it (docs/arenas.md section 4, "Small arenas split into fixed groups"): in a 3-seat arena of 5 players one
player sat in a smaller race in 99% of their races, and about 95% of the smaller races
formed when their players were the only ones free, so a pairing rule alone cannot
choose who sits in them.

It also measures how well players mix (how many others each meets, how many pairs of
players never meet) and the waits between a player's races, under the product's pairing
and under candidate rules that make a group which repeats its last race wait longer
(``Hold``: measured here, not the product's rule; docs/arenas.md has the numbers).

``python -m tests.arena.leftover_sim`` prints, for a few arena sizes, each player's share
of smaller races and their points per race, then the candidates side by side.
"""

from __future__ import annotations

import heapq
import random
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from server.arena.pairing import Free, Window, acceptable, pair, spread
from server.arena.scoring import Standing, after_race, score_race, standings

TICK_MS = 1_000
CLOCK_MS = 300_000  # a race's clock: every simulated race ends within it
WINDOW = Window(base_window=4, widen_per_s=10.0, max_wait_ms=3_000)


@dataclass(frozen=True)
class View:
    """What a candidate rule may read besides the free players (the store could keep it):
    how many players each player's last race had, and how long until each race in progress
    must end (its clock runs out)."""

    last_size: dict[str, int]
    ends_within: list[int]


Pairing = Callable[[Sequence[Free], int, Window, View], list[list[Free]]]


def product(free: Sequence[Free], seats: int, window: Window, view: View) -> list[list[Free]]:
    """The server's rule (server/arena/pairing.py)."""
    return pair(free, seats, window)


@dataclass(frozen=True)
class Hold:
    """A candidate rule: the product's, except that a group of exactly the players of one
    race again (a *repeat*) waits until its longest wait reaches ``hold_ms``, and only while
    another race is in progress (else nobody new can come). ``sure``: wait only while a race
    in progress must end (its clock) before the group has waited ``hold_ms``, so that the
    wait always brings someone new. ``rotate``: among groups of equal spread, prefer the
    one with more players whose last race was a smaller one, so that the leftovers are others.

    Spelled out over the whole line (quadratic): fine for a simulation, not for the server.
    ``Hold()`` is the product's rule.
    """

    hold_ms: int = 0
    sure: bool = False
    rotate: bool = False

    def __call__(self, free: Sequence[Free], seats: int, window: Window, view: View) -> list[list[Free]]:
        def repeat(g: Sequence[Free]) -> bool:
            lasts = {f.last_race for f in g}
            return len(lasts) == 1 and "" not in lasts and len(g) == view.last_size[g[0].player]

        def held(g: Sequence[Free]) -> bool:
            waited = max(f.waited_ms for f in g)
            if not view.ends_within or not repeat(g):
                return False
            if self.sure:
                return waited + min(view.ends_within) <= self.hold_ms
            return waited < self.hold_ms

        def from_smaller(g: Sequence[Free]) -> int:
            return sum(0 < view.last_size.get(f.player, 0) < seats for f in g) if self.rotate else 0

        line = sorted(free, key=lambda f: (f.position, f.player))
        groups: list[list[Free]] = []
        while True:
            candidates = [
                ((spread(g), -from_smaller(g), -max(f.waited_ms for f in g), i), g)
                for i in range(len(line) - seats + 1)
                if acceptable(g := line[i : i + seats], window) and not held(g)
            ]
            if not candidates:
                break
            (*_, i), g = min(candidates, key=lambda c: c[0])
            groups.append(g)
            del line[i : i + seats]
        if 2 <= len(line) < seats and max(f.waited_ms for f in line) >= window.max_wait_ms and not held(line):
            groups.append(line)
        return groups


@dataclass
class Tally:
    """One player's races over the simulation."""

    races: int = 0
    smaller: int = 0
    points: int = 0
    smaller_points: int = 0  # of `points`, scored in smaller races
    met: list[tuple[str, ...]] = field(default_factory=list)  # each race's opponents, in order
    waits: list[int] = field(default_factory=list)  # ms from free to the next race formed


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

    def shares(self) -> tuple[float, float]:
        """The smallest and the largest share of smaller races among the players."""
        s = [self.smaller_share(p) for p in self.tallies]
        return min(s), max(s)

    def opponents(self, player: str) -> set[str]:
        """The players ``player`` met at least once."""
        return {o for race in self.tallies[player].met for o in race}

    def never_met(self) -> float:
        """The share of pairs of players who never raced each other."""
        ps = sorted(self.tallies)
        pairs = [(p, q) for i, p in enumerate(ps) for q in ps[i + 1 :]]
        return sum(q not in self.opponents(p) for p, q in pairs) / len(pairs)

    def waits(self) -> tuple[float, int, int]:
        """Waits from being freed to the next race, over every player: mean, 90th
        percentile, max (ms)."""
        w = sorted(x for t in self.tallies.values() for x in t.waits)
        return statistics.mean(w), w[int(0.9 * (len(w) - 1))], w[-1]

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
    pairing: Pairing = product,
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
    size: dict[str, int] = {}  # players in each player's last race
    out = Outcome(seats, {p: Tally() for p in ids})
    # (ends, race, players, rows), a heap
    running: list[tuple[int, str, tuple[str, ...], list[dict[str, object]]]] = []
    formed_at: dict[str, int] = {}
    formed = 0
    now = 0
    while formed < races_each * players // seats:
        while running and running[0][0] <= now:
            _, race, members, rows = heapq.heappop(running)
            del formed_at[race]
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
                tally.met.append(tuple(p for p in members if p != rp.player))
                free_since[rp.player] = now
                last[rp.player] = race
                size[rp.player] = len(members)
        position = {s.player: i for i, (_, s) in enumerate(standings(list(standing.values())))}
        free = [Free(p, position[p], now - since, last.get(p, "")) for p, since in free_since.items()]
        view = View(size, [f + CLOCK_MS - now for f in formed_at.values()])
        for group in pairing(free, seats, WINDOW, view):
            formed += 1
            race = f"r{formed:05d}"
            members = tuple(f.player for f in group)
            rows, lasts = race_rows(rng, members, skill)
            heapq.heappush(running, (now + lasts, race, members, rows))
            formed_at[race] = now
            for p in members:
                if out.tallies[p].races:  # not the first race: that one forms at the start
                    out.tallies[p].waits.append(now - free_since[p])
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


CANDIDATES: dict[str, Pairing] = {
    "product (3 s)": product,
    "rotate": Hold(rotate=True),
    "hold 10 s": Hold(10_000),
    "hold 20 s": Hold(20_000),
    "hold 20 s, rotate": Hold(20_000, rotate=True),
    "hold 30 s, rotate": Hold(30_000, rotate=True),
    "sure 60 s": Hold(60_000, sure=True),
    "sure 60 s, rotate": Hold(60_000, sure=True, rotate=True),
}


def compare(players: int, seats: int, *, races_each: int = 15, seeds: int = 40) -> str:
    """Each candidate over ``seeds`` arenas of ``races_each`` races a player (15: about a
    half-hour arena of three-minute races): means over the arenas of the smallest and
    largest share of smaller races, of the pairs that never met and of the mean and 90th
    percentile wait; the longest wait of all."""
    lines = [
        f"{players} players, {seats} seats, {races_each} races each, {seeds} arenas:"
        "   smaller share min/max   never met   wait mean / p90 / max"
    ]
    for name, rule in CANDIDATES.items():
        rows = []
        for seed in range(seeds):
            o = simulate(players, seats, races_each=races_each, seed=seed, pairing=rule)
            rows.append((*o.shares(), o.never_met(), *o.waits()))
        lo, hi, never, mean, p90, _ = (statistics.mean(c) for c in zip(*rows, strict=True))
        longest = max(r[-1] for r in rows)
        lines.append(
            f"  {name:20s} {lo:5.1%} / {hi:5.1%}   {never:5.1%}"
            f"   {mean / 1000:4.1f} s / {p90 / 1000:4.1f} s / {longest / 1000:4.1f} s"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    for n, s in ((5, 3), (7, 4), (5, 4), (10, 4), (11, 3)):
        print(report(n, s))
    for n, s in ((5, 3), (7, 4), (4, 2), (10, 4), (11, 3)):
        print(compare(n, s))
