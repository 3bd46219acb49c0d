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
Repeated pairings count less. A race of ``k`` players counts as ``1/(k−1)``
of a pairing for each two of them (a duel counts 1, an 8-player race 1/7:
in a big race any two players are only a small part of each other's
result). For two accounts A and B, ``n`` adds up those shares over the rated
races of this game with both of them that ended in the 24 hours before this
one. Their *pair weight* is 1 while n ≤ 2, ``2^−(n−2)`` between 2 and 5 (½ at
n = 3, ¼ at n = 4) and 0 from n = 5 on. A player's weight in a race is the
mean of their pair weights with every opponent, and their rating moves by
that fraction of openskill's update: ``μ' = μ + w·(μ_openskill − μ)`` and
likewise for σ. With w = 1 (no recent repeats) the update is exactly
openskill's. So two accounts dueling each other gain at most 3¾ races' worth
of rating a day (their duels weigh 1, 1, 1, ½, ¼), and nothing from the sixth
duel on; honest players who meet often in big races keep their full weight
for longer.
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
FREE_REPEATS = 2  # up to this many recent pairings (n), a pairing counts fully
ZERO_FROM = 5  # from this n on, it counts nothing

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


#: An earlier rated race of a pair: (its end time in ms, the pairing's share
#: in it, ``1 / (players - 1)``).
Pairing = tuple[int, float]


def share(players: int) -> float:
    """How much one race of ``players`` counts as a pairing of two of them."""
    return 1.0 / (players - 1)


def recent(
    pairings: Iterable[Sequence[float]], now_ms: int, window_ms: int = PAIR_WINDOW_MS
) -> list[Pairing]:
    """The pairings within the window before ``now_ms`` (the ones the rule counts), oldest first."""
    return sorted((int(p[0]), float(p[1])) for p in pairings if now_ms - window_ms < p[0] <= now_ms)


def repeats(pairings: Iterable[Sequence[float]], now_ms: int, window_ms: int = PAIR_WINDOW_MS) -> float:
    """``n``: the shares of a pair's recent pairings, added up."""
    return round(sum(s for _, s in recent(pairings, now_ms, window_ms)), 9)


def pair_weight(n: float) -> float:
    """How much a pairing counts after ``n`` recent pairings (see the module docstring)."""
    if n <= FREE_REPEATS:
        return 1.0
    if n >= ZERO_FROM:
        return 0.0
    return float(2.0 ** (FREE_REPEATS - n))


def fairness_weights(
    players: Sequence[str],
    pairings: Mapping[str, Iterable[Sequence[float]]],
    now_ms: int,
    window_ms: int = PAIR_WINDOW_MS,
) -> dict[str, float]:
    """Each player's weight: the mean pair weight over their opponents.

    ``pairings`` maps ``pair_id`` to that pair's earlier ``Pairing`` s
    (missing pairs never met); only those within the window count.
    """
    weights = {}
    for p in players:
        per_pair = [
            pair_weight(repeats(pairings.get(pair_id(p, q), ()), now_ms, window_ms))
            for q in players
            if q != p
        ]
        weights[p] = sum(per_pair) / len(per_pair) if per_pair else 0.0
    return weights


def with_race(
    pairings: Mapping[str, Iterable[Sequence[float]]],
    players: Sequence[str],
    at_ms: int,
    window_ms: int = PAIR_WINDOW_MS,
) -> dict[str, list[Pairing]]:
    """Every pair of the race's players: their pairings with this race among them, in time
    order, those within the window before the newest kept. A race may be rated after a later
    one of the same pair (two ending at once, or a race rated by the sweep after its ending
    process died): the later pairings stay (only this race's weight ignores them)."""
    this = (at_ms, share(len(players)))
    out = {}
    for a in players:
        for b in players:
            if a < b:
                every = [(int(p[0]), float(p[1])) for p in pairings.get(pair_id(a, b), ())] + [this]
                newest = max(t for t, _ in every)
                out[pair_id(a, b)] = sorted(p for p in every if newest - window_ms < p[0])
    return out


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

    Equal means equal to the last bit. The result depends on the ranks and
    the ratings only, never on the order the entrants are listed in: they are
    rated in one canonical order (by rank, then μ, then σ), and the players
    who share a rank and a rating before the race share one result, the mean
    (``math.fsum``) of all their updates over all the orders. Summing each
    player's own updates instead left the last bits to the player's place in
    the list (eight new players tying came out 24.999999999999996 to
    25.000000000000004), and a leaderboard that orders by the exact number
    would rank equal players apart.
    """

    def same(e: Entrant) -> tuple[int, float, float]:
        r = ratings[e.player]
        return (e.rank, r.mu, r.sigma)

    canon = sorted(entrants, key=same)  # players with equal keys are interchangeable
    orders = _strict_orders([e.rank for e in canon])
    mus: dict[tuple[int, float, float], list[float]] = {}
    sigmas: dict[tuple[int, float, float], list[float]] = {}
    for order in orders:
        teams = [[MODEL.rating(mu=ratings[e.player].mu, sigma=ratings[e.player].sigma)] for e in canon]
        rated = MODEL.rate(teams, ranks=[float(r) for r in order])
        for e, team in zip(canon, rated):
            mus.setdefault(same(e), []).append(team[0].mu)
            sigmas.setdefault(same(e), []).append(team[0].sigma)
    out = {}
    for e in entrants:
        k = same(e)
        out[e.player] = (math.fsum(mus[k]) / len(mus[k]), math.fsum(sigmas[k]) / len(sigmas[k]))
    return out


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
