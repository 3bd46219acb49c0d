"""Equal players get equal ratings, to the last bit, and share a rank on the rating board
(docs/ratings.md §3: "Tied players of equal ratings get equal updates"; docs/protocol.md
§9 `rating_board`: "`rank` (ties share one)")."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from server.ratings import rating as rt
from server.ratings.accounts_store import Accounts
from server.ratings.store import Ratings

GAME = "racing-aces"
PW = "correct horse battery"


def entrants(ranks: list[int]) -> list[rt.Entrant]:
    return [rt.Entrant(f"p{i}", f"s{i}", r) for i, r in enumerate(ranks)]


def test_eight_new_players_tying_get_one_and_the_same_rating() -> None:
    after = rt.rate_race(entrants([1] * 8), {})
    assert len({(r.mu, r.sigma, r.ordinal) for r in after.values()}) == 1, after


def test_tied_equals_among_others_get_one_rating() -> None:
    ranks = [3, 1, 2, 2, 2, 4, 2]
    before = {
        "p0": rt.Rating(27.0, 4.0, 12),
        "p1": rt.Rating(22.0, 6.0, 3),
        "p2": rt.Rating(25.5, 5.5, 11),
        "p3": rt.Rating(25.5, 5.5, 11),
        "p4": rt.Rating(25.5, 5.5, 11),
        "p5": rt.Rating(31.0, 2.5, 40),
        "p6": rt.Rating(19.0, 7.0, 2),  # tied with them, another rating
    }
    after = rt.rate_race(entrants(ranks), before)
    assert after["p2"] == after["p3"] == after["p4"], after
    assert after["p6"] != after["p2"]


@given(
    st.lists(
        st.tuples(st.integers(1, 4), st.sampled_from([(25.0, 25 / 3), (28.0, 3.0), (21.5, 6.5)])),
        min_size=2,
        max_size=8,
    ),
    st.randoms(use_true_random=False),
)
def test_the_update_depends_on_ranks_and_ratings_only(players, rng: random.Random) -> None:
    """Listing the entrants in another order changes no bit of anyone's rating, and two
    players with the same rank and the same rating before get the same rating after."""
    es = [rt.Entrant(f"p{i}", f"s{i}", rank) for i, (rank, _) in enumerate(players)]
    before = {f"p{i}": rt.Rating(mu, sigma, 10) for i, (_, (mu, sigma)) in enumerate(players)}
    after = rt.rate_race(es, before)
    shuffled = es[:]
    rng.shuffle(shuffled)
    assert rt.rate_race(shuffled, before) == after
    for a in es:
        for b in es:
            if (a.rank, before[a.player]) == (b.rank, before[b.player]):
                assert after[a.player] == after[b.player]


async def test_players_who_always_tie_share_rank_one_on_the_board(
    clock, accounts: Accounts, ratings: Ratings
) -> None:
    """Eight accounts tie in every 8-seat race: once established, all eight are first."""
    players = [f"p{i:04d}" for i in range(8)]
    for p in players:
        await accounts.claim(p, "n" + p, PW)
    for i in range(rt.PROVISIONAL_RACES):
        race = [rt.Entrant(p, "s-" + p, 1) for p in players]
        assert (await ratings.record_race(GAME, f"tie{i}", race, ended_ms=clock.ms + i * 60_000)).applied
    board = await ratings.leaderboard(GAME, top=8, player=players[5], around=2)
    assert board["count"] == 8
    assert [e["rank"] for e in board["top"]] == [1] * 8
    assert board["me"]["rank"] == 1 and [e["rank"] for e in board["around"]] == [1] * 5
    assert len({(e["mu"], e["sigma"], e["rating"]) for e in board["top"]}) == 1
