"""Ratings per game from a rated race's final ranking (pure, no I/O).

The model is openskill's Weng–Lin Plackett–Luce with its default parameters
(μ₀ = 25, σ₀ = 25/3, β = 25/6, τ = 25/300): every player is one team, the
race's final ranking is the ranking given to ``rate`` (rank 1 first). Equal
ranks tie, exactly as the race's ranking says; a tie is rated as the mean of
the updates of the orders that would break it (``openskill_update``).
docs/ratings.md explains the choice against Glicko-2 and TrueSkill.

Provisional
-----------
A rating is *provisional* until it has counted in ``PROVISIONAL_RACES`` (10)
rated races; races that the fairness rule weighs 0 do not count.

Displayed rating
----------------
``display = max(0, round(1000 + 40 × (μ − 3σ)))``. ``μ − 3σ`` is openskill's
*ordinal*, a conservative estimate (the skill is above it with ~99.9 %
confidence), so a new account shows 1000 and climbs as the system becomes
sure of it, and nobody gains by playing little. 40 display points per μ
point put one β (a class of skill: the better of two players one β apart
wins about three races in four) at about 170 points, close to the familiar
Elo scale. Leaderboards order by the ordinal itself.

Fairness
--------
Rated races need distinct accounts from distinct sessions (``check_entrants``).
Repeated pairings count less: for two accounts A and B, ``n`` is the number of
rated races of this game with both of them that ended in the 24 hours before
this one. Their *pair weight* is 1 while n ≤ 2, ½ at n = 3, ¼ at n = 4 and 0
from n = 5 on. A player's weight in a race is the mean of their pair weights
with every opponent, and their rating moves by that fraction of openskill's
update: ``μ' = μ + w·(μ_openskill − μ)`` and likewise for σ. With w = 1 (no
recent repeats) the update is exactly openskill's. So two accounts racing
each other gain at most 3¾ races' worth of rating per day, and nothing more
from the fifth race on, while a repeated opponent among strangers in an
8-player race only takes their share of the weight.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from openskill.models import PlackettLuce

MIN_PLAYERS, MAX_PLAYERS = 2, 8
PROVISIONAL_RACES = 10
DISPLAY_BASE = 1000
DISPLAY_SCALE = 40
PAIR_WINDOW_MS = 24 * 3600 * 1000
FREE_REPEATS = 2  # pairings within the window that still count fully
ZERO_FROM = 5  # from this many recent pairings on, the pairing counts nothing

MODEL = PlackettLuce()


class RatingError(Exception):
    """A race that cannot be rated; ``code`` is a stable protocol error code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True, slots=True)
class Rating:
    """One account's rating in one game. ``races``: rated races that counted."""

    mu: float = MODEL.mu
    sigma: float = MODEL.sigma
    races: int = 0

    @property
    def ordinal(self) -> float:
        return self.mu - 3.0 * self.sigma

    @property
    def display(self) -> int:
        return display(self.mu, self.sigma)

    @property
    def provisional(self) -> bool:
        return self.races < PROVISIONAL_RACES


NEW = Rating()


def display(mu: float, sigma: float) -> int:
    """The displayed rating (see the module docstring for the formula)."""
    return max(0, round(DISPLAY_BASE + DISPLAY_SCALE * (mu - 3.0 * sigma)))


@dataclass(frozen=True, slots=True)
class Entrant:
    """A player of a rated race: account id, login session, final rank (1 = first)."""

    player: str
    session: str
    rank: int


def check_entrants(entrants: Sequence[Entrant]) -> None:
    """Raise ``RatingError('not-rateable')`` unless the race can be rated."""
    if not MIN_PLAYERS <= len(entrants) <= MAX_PLAYERS:
        raise RatingError("not-rateable", f"a rated race has {MIN_PLAYERS} to {MAX_PLAYERS} players")
    if len({e.player for e in entrants}) != len(entrants):
        raise RatingError("not-rateable", "an account appears twice in the race")
    if len({e.session for e in entrants}) != len(entrants):
        raise RatingError("not-rateable", "two accounts of the race play from the same session")
    if any(e.rank < 1 for e in entrants):
        raise RatingError("not-rateable", "ranks start at 1")


# --- fairness ---------------------------------------------------------------------------


def pair_id(a: str, b: str) -> str:
    """The key of an unordered pair of accounts."""
    return f"{a}|{b}" if a < b else f"{b}|{a}"


def recent(times_ms: Iterable[int], now_ms: int, window_ms: int = PAIR_WINDOW_MS) -> list[int]:
    """The times within the window before ``now_ms`` (the ones the rule counts)."""
    return sorted(t for t in times_ms if now_ms - window_ms < t <= now_ms)


def pair_weight(recent_pairings: int) -> float:
    """How much a pairing counts after ``recent_pairings`` others within the window."""
    if recent_pairings <= FREE_REPEATS:
        return 1.0
    if recent_pairings >= ZERO_FROM:
        return 0.0
    return 0.5 ** (recent_pairings - FREE_REPEATS)


def fairness_weights(
    players: Sequence[str],
    pairings: Mapping[str, Sequence[int]],
    now_ms: int,
    window_ms: int = PAIR_WINDOW_MS,
) -> dict[str, float]:
    """Each player's weight: the mean pair weight over their opponents.

    ``pairings`` maps ``pair_id`` to the end times of earlier rated races of
    that pair (missing pairs never met); only those within the window count.
    """
    weights = {}
    for p in players:
        others = [q for q in players if q != p]
        per_pair = [
            pair_weight(len(recent(pairings.get(pair_id(p, q), ()), now_ms, window_ms))) for q in others
        ]
        weights[p] = sum(per_pair) / len(per_pair) if per_pair else 0.0
    return weights


# --- the update -------------------------------------------------------------------------


def _strict_orders(ranks: Sequence[int]) -> list[list[int]]:
    """The strict rankings a ranking with ties stands for: within every tied
    group the members take each place in turn (cyclic rotations, as many as
    the least common multiple of the group sizes, so that each member holds
    each place of its group equally often). A ranking without ties is its own
    only order."""
    groups: dict[int, list[int]] = {}
    for i, r in enumerate(ranks):
        groups.setdefault(r, []).append(i)
    count = math.lcm(*(len(g) for g in groups.values()))
    orders = []
    for turn in range(count):
        key = {}
        for r, members in groups.items():
            for k, i in enumerate(members):
                key[i] = (r, (k + turn) % len(members))
        place = [0] * len(ranks)
        for p, i in enumerate(sorted(key, key=key.__getitem__)):
            place[i] = p + 1
        orders.append(place)
    return orders


def openskill_update(
    entrants: Sequence[Entrant], ratings: Mapping[str, Rating]
) -> dict[str, tuple[float, float]]:
    """openskill's (μ, σ) after the race, per player (no fairness weighting).

    A ranking without ties is rated by openskill as it is. A tie is rated as
    the mean of openskill's updates over the orders that break it
    (``_strict_orders``): openskill's own tie handling in Plackett–Luce can
    leave a tied player below one they beat, so it is not used. Tied players
    of equal ratings get equal updates, and a two-player tie between equal
    ratings leaves both μ where they were.
    """
    orders = _strict_orders([e.rank for e in entrants])
    mu = [0.0] * len(entrants)
    sigma = [0.0] * len(entrants)
    for order in orders:
        teams = [[MODEL.rating(mu=ratings[e.player].mu, sigma=ratings[e.player].sigma)] for e in entrants]
        rated = MODEL.rate(teams, ranks=[float(r) for r in order])
        for i, team in enumerate(rated):
            mu[i] += team[0].mu / len(orders)
            sigma[i] += team[0].sigma / len(orders)
    return {e.player: (mu[i], sigma[i]) for i, e in enumerate(entrants)}


def rate_race(
    entrants: Sequence[Entrant],
    ratings: Mapping[str, Rating],
    weights: Mapping[str, float] | None = None,
) -> dict[str, Rating]:
    """Every player's rating after the race.

    ``ratings``: the ratings before the race (a player missing is ``NEW``).
    ``weights``: ``fairness_weights``; None weighs everyone 1 (openskill's
    update exactly). A player weighted 0 keeps their rating and race count.
    """
    check_entrants(entrants)
    before = {e.player: ratings.get(e.player, NEW) for e in entrants}
    updated = openskill_update(entrants, before)
    after = {}
    for e in entrants:
        old = before[e.player]
        w = 1.0 if weights is None else weights[e.player]
        if w <= 0.0:
            after[e.player] = old
            continue
        mu, sigma = updated[e.player]
        after[e.player] = replace(
            old,
            mu=old.mu + w * (mu - old.mu),
            sigma=old.sigma + w * (sigma - old.sigma),
            races=old.races + 1,
        )
    return after
