"""An account's profile page draws what the server recorded (client/web/static/js/ratings_views.js
`profileEl`), in headless Chromium against a real server and Redis.

- Rated races between two accounts (client-library players): each game with a rating history
  has a line graph of it, oldest to newest (the oldest race's rating before it, then the rating
  after each race), its aria-label naming the first and last ratings; a game without history
  has none. A race rated while the owner's profile is open adds its point there.
- Daily attempts on several days (the daily clock moved a day at a time, as
  tests/web/test_daily_return.py does): the daily-challenges table has a row per game played,
  with the days played, wins, current and best streaks of the server's `history`.

The server runs in-process (tests/web/test_daily_return.py `daily_server`) for its short clocks
and its movable daily clock. Screenshots: test-artifacts/web/.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect
from waiting import DEADLINE, until

from client.library import Client, connect
from protocol import messages as m
from server.daily import days

from . import test_daily_return
from .accounts_pages import login
from .conftest import shot

daily_server = test_daily_return.daily_server
open_page = test_daily_return.open_page

pytestmark = pytest.mark.timeout(180)

GAME = "racing-aces"
OTHER = "fours-up"
PASSWORD = "correct horse battery"
DAY_MS = 86_400_000

# A rating graph's viewBox size, aria-label and the points of its path.
GRAPH_OF_SVG = """(svg) => {
  const [, , w, h] = svg.getAttribute('viewBox').split(' ').map(Number);
  const d = svg.querySelector('path').getAttribute('d');
  const points = d.split(' ').map((p) => p.slice(1).split(',').map(Number));
  return { w, h, label: svg.getAttribute('aria-label'), points };
}"""

# The daily-challenges table's rows, as the cells' texts.
DAILY_ROWS = """() => [...document.querySelectorAll('#profile table.daily-streaks tbody tr')]
  .map((tr) => [...tr.cells].map((td) => td.textContent))"""


async def account(url: str, name: str) -> Client:
    """A client-library player that claims the account `name` (the connection is logged in)."""
    c = await connect(url, name=name).__aenter__()
    acct = await c.request(m.Claim(name=name, password=PASSWORD))
    assert acct.name == name
    return c


async def rated_race(winner: Client, loser: Client, game: str) -> None:
    """A 2-seat rated race: `winner` makes one move more (same cards home), both declare
    finished; returns once both are told their new ratings."""
    snap = await winner.create(game, seats=2, rated=True)
    rid = snap.race
    await loser.join(rid)
    for c in (winner, loser):
        await c.ready(rid)
    for c in (winner, loser):
        await c.wait_for("start", lambda ev: ev.race == rid, timeout=DEADLINE)
    await winner.move(rid, "draw")
    for c in (winner, loser):
        await c.finish(rid)
    for c in (winner, loser):
        await c.wait_for("rating", lambda ev: ev.race == rid, timeout=DEADLINE)


@pytest.fixture
def ada_bob(daily_server):
    """The accounts ada and bob, client-library players on the server's loop."""
    srv = daily_server
    players = [srv.run(account(srv.ws, name)) for name in ("ada", "bob")]
    yield players
    for c in players:
        srv.run(c.close())


def ratings_of(srv, c: Client, game: str) -> m.GameRating:
    profile = srv.run(c.request(m.Profile()))
    return next(g for g in profile.ratings if g.game == game)


def test_the_rating_graph_follows_the_history_oldest_to_newest(daily_server, ada_bob, open_page):
    srv = daily_server
    ada, bob = ada_bob
    for winner, loser in ((ada, bob), (ada, bob), (bob, ada)):
        srv.run(rated_race(winner, loser, GAME))
    history = ratings_of(srv, ada, GAME).history  # newest first
    assert len(history) == 3
    expected = [history[-1].before.rating] + [r.after.rating for r in reversed(history)]
    # not the same read backwards: a graph drawn newest to oldest would not pass
    assert expected != expected[::-1], expected

    page = open_page("reader")
    page.goto(srv.http + f"#profile={ada.player}")
    card = page.locator(f'#profile .rating-card[data-game="{GAME}"]')
    expect(card.locator("svg.rating-graph")).to_have_count(1)
    graph = card.locator("svg.rating-graph").element_handle().evaluate(GRAPH_OF_SVG)
    assert graph["label"] == f"rating from {expected[0]} to {expected[-1]}"
    # the line has no scale of its own: its range in words under it
    expect(card.locator(".rating-range")).to_have_text(f"lowest {min(expected)} · highest {max(expected)}")
    # the last point is the rating the card shows
    expect(card.locator(".rating-value")).to_have_text(str(expected[-1]))

    # One point per rating, left to right evenly, each at its rating's height: the lowest at the
    # bottom margin, the highest at the top one (SVG's y grows downwards).
    points = graph["points"]
    assert len(points) == len(expected)
    w, h = graph["w"], graph["h"]
    lo, hi = min(expected), max(expected)
    assert hi > lo, expected
    for i, ((x, y), rating) in enumerate(zip(points, expected)):
        assert x == pytest.approx(i * w / (len(expected) - 1), abs=0.1), (i, points)
        height = (h - 4 - y) / (h - 8)  # 0 at the lowest rating, 1 at the highest
        assert height == pytest.approx((rating - lo) / (hi - lo), abs=0.01), (i, points, expected)

    # The games without a rated race have no graph.
    others = page.locator(f'#profile .rating-card:not([data-game="{GAME}"])')
    assert others.count() >= 1
    for i in range(others.count()):
        expect(others.nth(i)).to_have_attribute("data-played", "no")
        expect(others.nth(i).locator("svg")).to_have_count(0)
    shot(page, "profile-rating-graph", full_page=True)


async def daily_attempt(c: Client, game: str) -> None:
    """Today's attempt of `game` (by the server's daily clock), declared finished at once."""
    snap = await c.request(m.DailyStart(game=game))
    rid = snap.race
    await c.wait_for("start", lambda ev: ev.race == rid, timeout=DEADLINE)
    await c.finish(rid)
    await c.wait_for("end", lambda ev: ev.race == rid, timeout=DEADLINE)


async def daily_history(srv, plan: dict[int, list[str]]) -> dict[str, m.HistoryData]:
    """The account dee plays the games of `plan` (day offset from today -> games), the daily
    clock moved to each day; returns the server's history of each game played, seen on the last
    day."""
    dee = await account(srv.ws, "dee")
    try:
        for offset, games in sorted(plan.items()):
            srv.shift_ms = offset * DAY_MS  # whole days: the same time of day, clear of the close
            for game in games:
                before = (await dee.request(m.History(game=game, days=0))).played
                await daily_attempt(dee, game)

                async def recorded(game: str = game, before: int = before) -> bool:
                    return (await dee.request(m.History(game=game, days=0))).played == before + 1

                await until(recorded, what=f"dee's {game} attempt of day +{offset} recorded")
        played = sorted({g for games in plan.values() for g in games})
        return {g: await dee.request(m.History(game=g, days=0)) for g in played}
    finally:
        await dee.close()


@pytest.mark.daily  # attempts on the real time of day (tests/conftest.py)
def test_the_daily_table_shows_the_recorded_streaks(daily_server, open_page):
    srv = daily_server
    # GAME on three days in a row, then a day off, then today: a current streak of 1, the best 3.
    # OTHER once, two days ago: no current streak.
    plan = {0: [GAME], 1: [GAME], 2: [GAME, OTHER], 4: [GAME]}
    recorded = srv.run(daily_history(srv, plan), timeout=120)
    assert days.day_of(srv.app.daily.clock()) == recorded[GAME].today
    got = {g: (h.played, h.streak, h.best_streak) for g, h in recorded.items()}
    assert got == {GAME: (4, 1, 3), OTHER: (1, 0, 1)}, got

    page = open_page("dee-reader")
    login(page, "dee", PASSWORD)  # the account page: dee's own profile
    page.wait_for_selector("#profile table.daily-streaks")
    names = {g: page.locator(f'#profile .rating-card[data-game="{g}"] h2').inner_text() for g in recorded}
    # one row per game played, in the server's order (by game id)
    expected = [
        [names[g], str(h.played), str(h.wins), str(h.streak), str(h.best_streak)]
        for g, h in sorted(recorded.items())
    ]
    assert page.evaluate(DAILY_ROWS) == expected
    heads = page.locator("#profile table.daily-streaks thead th").all_inner_texts()
    assert heads == ["Game", "Played", "Won", "Streak", "Best"]
    shot(page, "profile-daily-streaks", full_page=True)


def test_my_profile_draws_a_new_rated_race_as_it_is_rated(daily_server, ada_bob, open_page):
    """On ada's own profile (logged in), a rated race she plays elsewhere adds its point to the
    graph without a reload (the `rating` event reopens the profile); she has no daily table."""
    srv = daily_server
    ada, bob = ada_bob
    srv.run(rated_race(ada, bob, GAME))
    page = open_page("ada-device")
    login(page, "ada", PASSWORD)
    graph = page.locator(f'#profile .rating-card[data-game="{GAME}"] svg.rating-graph')
    first = ratings_of(srv, ada, GAME).history[0]
    expect(graph).to_have_attribute(
        "aria-label", f"rating from {first.before.rating} to {first.after.rating}"
    )
    expect(page.locator("#profile table.daily-streaks")).to_have_count(0)
    expect(page.locator("#profile")).not_to_contain_text("Daily challenges")

    srv.run(rated_race(bob, ada, GAME))
    newest = ratings_of(srv, ada, GAME).history[0]
    assert newest.before.rating == first.after.rating
    expect(graph).to_have_attribute(
        "aria-label", f"rating from {first.before.rating} to {newest.after.rating}"
    )
    assert len(graph.element_handle().evaluate(GRAPH_OF_SVG)["points"]) == 3
