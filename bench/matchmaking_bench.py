"""Matchmaking by rating, simulated: how close are the races it forms, and how long do players wait?

200 simulated players of known skill arrive over the first half hour and
then play on: they join the quick-match pool, wait for ``form_races`` (called
every simulated second) to put them in a race, race, take a break, and join
again. Each player always asks for the same race size (half of them 2 seats,
30 % 4 seats, 20 % 8 seats). A race's outcome is drawn from the true skills:
every player performs at ``skill + N(0, β)`` and the race ranks by
performance. Ratings start new and are updated after every race by the
server's own rules (``rate_race`` with the fairness rule), so matchmaking
works with ratings that are still being learnt, as a new server would.

Reported, for matchmaking by rating (the default curve) and for a first-come
baseline (every player's window open from the start):

- the median and 90th percentile *rating gap* of formed races: the spread
  (highest minus lowest) of the players' μ when the race was formed, in μ and
  in display points (40 per μ), and the same spread of their true skills;
- the median and 90th percentile wait from joining the pool to the race;
- how well the final ratings order the players (Spearman's ρ between μ and
  true skill).

Figures are given over the second half of the run (ratings have settled) and
over the whole run. Pure computation, no server: run with

    .venv/bin/python bench/matchmaking_bench.py           # 200 players, 4 simulated hours
    .venv/bin/python bench/matchmaking_bench.py --quick   # 1 simulated hour
"""

from __future__ import annotations

import argparse
import heapq
import random
import statistics
import time
from dataclasses import dataclass, field

from server.ratings.matchmaking import DEFAULT_CURVE, Curve, Waiting, form_races, spread
from server.ratings.rating import MODEL, NEW, Entrant, Pairing, Rating, fairness_weights, rate_race, with_race

SEATS = [(2, 0.5), (4, 0.3), (8, 0.2)]


@dataclass
class Player:
    id: str
    skill: float
    seats: int
    rating: Rating = NEW


@dataclass
class Figures:
    gaps_mu: list[float] = field(default_factory=list)
    gaps_true: list[float] = field(default_factory=list)
    waits_s: list[float] = field(default_factory=list)
    races: int = 0
    reduced: int = 0  # player-races weighed below 1 by the fairness rule


def pct(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def spearman(a: list[float], b: list[float]) -> float:
    def ranks(xs: list[float]) -> list[float]:
        order = sorted(range(len(xs)), key=lambda i: xs[i])
        r = [0.0] * len(xs)
        for k, i in enumerate(order):
            r[i] = float(k)
        return r

    return statistics.correlation(ranks(a), ranks(b))


def simulate(
    curve: Curve, players_n: int, hours: float, seed: int
) -> tuple[Figures, Figures, dict[int, Figures], float]:
    """Figures of the second half, of the whole run, of the second half per race size,
    and Spearman's ρ of the final μ against the true skills."""
    rng = random.Random(seed)
    players = {}
    for i in range(players_n):
        seats = rng.choices([s for s, _ in SEATS], [w for _, w in SEATS])[0]
        players[f"p{i:03d}"] = Player(f"p{i:03d}", rng.gauss(25.0, 5.0), seats)
    end_s = int(hours * 3600)
    half_s = end_s // 2
    # (time a player joins the pool, player id)
    joins: list[tuple[int, str]] = [(rng.randrange(0, 1800), p) for p in players]
    heapq.heapify(joins)
    pool: dict[str, Waiting] = {}
    pairings: dict[str, list[Pairing]] = {}
    late, whole = Figures(), Figures()
    by_size = {s: Figures() for s, _ in SEATS}
    race_no = 0
    for now_s in range(end_s):
        while joins and joins[0][0] <= now_s:
            _, pid = heapq.heappop(joins)
            p = players[pid]
            pool[pid] = Waiting(pid, p.rating.mu, now_s * 1000, p.seats)
        if not pool:
            continue
        for group in form_races(list(pool.values()), now_s * 1000, curve):
            race_no += 1
            ids = [w.player for w in group]
            figs = (whole, late, by_size[len(group)]) if now_s >= half_s else (whole,)
            for fig in figs:
                fig.races += 1
                fig.gaps_mu.append(spread(group))
                fig.gaps_true.append(
                    max(players[who].skill for who in ids) - min(players[who].skill for who in ids)
                )
                fig.waits_s.extend(now_s - w.joined_ms / 1000 for w in group)
            for who in ids:
                del pool[who]
            performance = {who: players[who].skill + rng.gauss(0.0, MODEL.beta) for who in ids}
            order = sorted(ids, key=lambda who: -performance[who])
            entrants = [Entrant(who, "s-" + who, order.index(who) + 1) for who in ids]
            duration = rng.randint(120, 300)
            at_ms = (now_s + duration) * 1000
            weights = fairness_weights(ids, pairings, at_ms)
            after = rate_race(entrants, {who: players[who].rating for who in ids}, weights)
            for who in ids:
                players[who].rating = after[who]
                if weights[who] < 1.0:
                    for fig in figs:
                        fig.reduced += 1
                heapq.heappush(joins, (now_s + duration + int(rng.expovariate(1 / 60.0)), who))
            pairings.update(with_race(pairings, ids, at_ms))
    ps = list(players.values())
    rho = spearman([p.rating.mu for p in ps], [p.skill for p in ps])
    return late, whole, by_size, rho


def row(label: str, fig: Figures) -> str:
    player_races = len(fig.waits_s)
    return (
        f"{label:<34} {fig.races:>6} {statistics.median(fig.gaps_mu):>7.2f} {statistics.median(fig.gaps_mu) * 40:>6.0f}"
        f" {pct(fig.gaps_mu, 0.9):>7.2f} {statistics.median(fig.gaps_true):>7.2f}"
        f" {statistics.median(fig.waits_s):>7.0f} {pct(fig.waits_s, 0.9):>6.0f}"
        f" {100.0 * fig.reduced / max(1, player_races):>7.1f}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--players", type=int, default=200)
    ap.add_argument("--hours", type=float, default=4.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--quick", action="store_true", help="1 simulated hour")
    args = ap.parse_args()
    hours = 1.0 if args.quick else args.hours
    c = DEFAULT_CURVE
    print(
        f"{args.players} players, {hours:g} simulated hours, seed {args.seed}; window = min({c.base} + {c.per_s}·wait_s,"
        f" {c.cap}) μ, anybody after {c.open_after_s:g} s"
    )
    print()
    print(
        f"{'':<34} {'races':>6} {'gap μ':>7} {'pts':>6} {'p90 μ':>7} {'true':>7} {'wait s':>7} {'p90 s':>6} {'fair<1%':>7}"
    )
    print("-" * 98)
    for label, curve in [("by rating", DEFAULT_CURVE), ("first come (baseline)", Curve(open_after_s=0.0))]:
        t0 = time.perf_counter()
        late, whole, by_size, rho = simulate(curve, args.players, hours, args.seed)
        print(row(label + ", 2nd half", late))
        for size, fig in by_size.items():
            print(row(f"  {size}-seat races, 2nd half", fig))
        print(row(label + ", all", whole) + f"   ρ={rho:.3f} ({time.perf_counter() - t0:.0f} s)")
    print()
    print(
        "gap: median spread of μ within a formed race (pts = ×40 display points), p90 μ: its 90th percentile,"
    )
    print(
        "true: median spread of true skill; wait: median and 90th percentile seconds from joining to the race;"
    )
    print(
        "fair<1%: player-races the fairness rule weighed below 1; ρ: Spearman's ρ of final μ vs true skill."
    )


if __name__ == "__main__":
    main()
