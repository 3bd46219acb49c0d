"""The lobby's "Your recent races" (docs/protocol.md §9 `recent`), in headless Chromium against
a real `solrace serve`.

A guest plays a race to its end and comes back to the lobby: the race is listed with its place,
its cards home, a replay link and an analysis link, and again after a reload (the server keeps
the list, not the browser). The lobby asks `recent` once per visit, not at every re-render.
A player with no finished race sees no panel. The rows' wording (places, kinds, rating changes,
relative times, a daily attempt's replay only once its day has closed) is checked on a list set
in the page (client/web/static/js/lobby_recent.js `recent`).
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from .conftest import shot
from .test_browser import play_by_clicking, race_id, wait_board

pytestmark = pytest.mark.timeout(240)

GAME = "fours-up"

# Count the frames the page sends, by type (window.sent), from now on.
COUNT_SENT = """() => {
  const c = window.solrace.conn;
  window.sent = {};
  if (c.__counting) return;
  c.__counting = true;
  const send = c.sendRaw.bind(c);
  c.sendRaw = (msg) => { window.sent[msg.t] = (window.sent[msg.t] || 0) + 1; return send(msg); };
}"""


def sent(page, t: str) -> int:
    return page.evaluate(f"(window.sent || {{}})[{t!r}] || 0")


def test_a_finished_race_is_listed_in_the_lobby(new_page, make_bot):
    page = new_page("rhea")
    base = page.url.split("#")[0]
    # a first-time player: no panel, the lobby as before
    page.wait_for_function("window.solrace.app.me !== null")
    expect(page.locator("#recent-races")).to_be_hidden()
    assert page.locator("#recent-races li").count() == 0

    page.evaluate(f"window.solrace.createRace({GAME!r}, 2, 300, false)")
    rid = race_id(page)
    bot = make_bot("recent-rival")
    bot.call(lambda c: c.join(rid))
    bot.call(lambda c: c.ready(rid))
    page.click("#ready-btn")
    wait_board(page)
    # we move, the rival never does: among equal cards home the player with more moves ranks first
    assert play_by_clicking(page, 2)
    bot.call(lambda c: c.finish(rid))
    page.once("dialog", lambda d: d.accept())
    page.click("#finish-btn")
    page.wait_for_selector("#result-panel")
    me = page.evaluate("window.solrace.app.me.player")
    page.wait_for_selector(f'#result-panel tr.mine[data-player="{me}"]')
    home = page.evaluate(
        "window.solrace.app.end.ranking.find((r) => r.player === window.solrace.app.me.player).home"
    )

    page.evaluate(COUNT_SENT)
    total = page.evaluate("window.solrace.app.race.total")
    page.click('#result-panel a[href="#/"]')
    row = page.locator(f'#recent-races li.recent-race[data-race="{rid}"]')
    expect(row).to_be_visible()
    expect(page.locator("#recent-races h2")).to_have_text("Your recent races")
    assert row.locator(".recent-game").inner_text() == "Fours Up"
    assert row.locator(".recent-place").inner_text() == "1st of 2"
    assert row.locator(".recent-kind").inner_text() == "public"
    assert row.locator(".recent-home").inner_text() == f"{home}/{total} home"
    assert row.locator(".recent-when").inner_text() == "just now"
    assert row.locator(".recent-rating").count() == 0  # a casual race
    assert row.locator(".recent-replay").get_attribute("href") == f"#replay={rid}"
    assert row.locator(".recent-analysis").get_attribute("href") == f"#race={rid}&analysis"
    shot(page, "lobby-recent-races")

    # one `recent` for this visit (the end's own request came before it): re-renders ask nothing
    page.wait_for_function("(window.sent.recent || 0) >= 1")
    asked, lists = sent(page, "recent"), sent(page, "races")
    page.evaluate("window.solrace.render()")
    page.evaluate("window.solrace.render()")
    # the race list's 4 s refresh: time has passed
    page.wait_for_function(f"(window.sent.races || 0) > {lists}")
    assert sent(page, "recent") == asked

    # the list is the server's: a reload shows it too
    page.reload()
    page.wait_for_selector(".net.online")
    expect(row).to_be_visible()
    assert row.locator(".recent-place").inner_text() == "1st of 2"

    # Replay opens the race's replay
    row.locator(".recent-replay").click()
    page.wait_for_url(re.compile(rf"#replay={rid}$"))
    page.wait_for_selector("#replay-page .replay-player .pile")
    assert page.evaluate("window.solrace.replayPage.id") == rid

    # Analysis opens the result, which asks for the solver's analysis by itself
    page.goto(base + "#/")
    row.locator(".recent-analysis").click()
    page.wait_for_selector("#result-panel")
    page.wait_for_selector("#analysis li", timeout=120_000)
    assert page.locator(f'#analysis li[data-player="{me}"]').count() == 1


# Set a list of recent races in the page and draw the lobby: the rows' wording, whatever the
# server's list. `now` is the page's server clock; returns it and the texts the page made.
SET_RECENT = """async (races) => {
  const { recent } = await import("/js/lobby_recent.js");
  const me = window.solrace.app.me.player;
  Object.assign(recent, { player: me, races, more: false, applied: 1e9 }); // later replies are older
  window.solrace.render();
}"""


def test_recent_rows_say_place_kind_rating_time_and_replay(new_page):
    page = new_page("theo")
    page.wait_for_function("window.solrace.app.me !== null")
    # The page's server clock at noon UTC of its day, from which it runs on: the rows below are
    # drawn at times relative to it, and a run across the real midnight would have the page
    # redraw them at that close (today's daily attempt no longer sealed) before the test moves
    # the clock past it itself.
    now = page.evaluate(
        """() => { const c = window.solrace.conn; const real = c.now(); const day = 86_400_000;
             const shift = real - (real % day) + day / 2 - real;
             c.now = () => Date.now() + c.offset + shift; return c.now(); }"""
    )
    day = 86_400_000
    today = now - now % day
    # a daily attempt of today (its day open: no replay yet) and one of three days ago (closed)
    open_at = (today + now) // 2
    old_at = today - 3 * day + 3_600_000
    old_date = page.evaluate("(t) => new Date(t).toISOString().slice(0, 10)", old_at)

    def race(i: int, **kw) -> dict:
        base = dict(
            race=f"r{i:04d}",
            game="racing-aces",
            kind="public",
            at=now - 60_000 * (i + 1),
            rank=1,
            players=2,
            status="won",
            home=52,
            total=52,
            moves=120,
            time_ms=90_000,
            rated=False,
        )
        base.update(kw)
        return base

    races = [
        race(
            0,
            kind="quick",
            rated=True,
            rank=1,
            before={"rating": 1500},
            after={"rating": 1512},
            at=now - 2 * 3_600_000 - 60_000,
        ),
        race(
            1,
            kind="private",
            rated=True,
            rank=2,
            players=3,
            status="finished",
            home=30,
            before={"rating": 1512},
            after={"rating": 1504},
        ),
        race(2, kind="daily", game="fours-up", players=1, status="timeout", home=20, at=open_at),
        race(3, kind="daily", game="fours-up", players=1, status="won", at=old_at),
        race(4, kind="arena", arena="hourly-racing-aces-1", rank=3, players=4, status="timeout", home=10),
        race(5, kind="bot", rated=True, players=2, rank=2),  # rated, its rating change not in yet
        race(6, kind="public", rank=11, players=12),
        # ended at its day's close, the next day's first ms: the entry's `date` names its day
        race(
            7,
            kind="daily",
            game="racing-aces",
            players=1,
            status="timeout",
            at=today - 2 * day,
            date=old_date,
        ),
    ]
    page.evaluate(SET_RECENT, races)
    rows = page.locator("#recent-races li.recent-race")
    expect(rows).to_have_count(5)  # the newest 5

    def row(i: int):
        return page.locator(f'#recent-races li[data-race="r{i:04d}"]')

    assert row(0).locator(".recent-when").inner_text() == "2 h ago"
    assert row(0).locator(".recent-kind").inner_text() == "quick match"
    assert row(0).locator(".recent-rating").inner_text() == "+12"
    assert row(0).locator(".pill.rated").count() == 1
    assert row(1).locator(".recent-place").inner_text() == "2nd of 3"
    assert row(1).locator(".recent-rating").inner_text() == "\u22128"
    assert row(1).locator(".recent-kind").inner_text() == "private"

    # today's daily attempt: sealed until its day closes, no analysis
    assert row(2).locator(".recent-place").inner_text() == "out of time"
    assert row(2).locator(".recent-kind").inner_text() == "daily"
    assert row(2).locator(".recent-replay").count() == 0
    assert row(2).locator(".recent-sealed").count() == 1
    assert row(2).locator(".recent-analysis").count() == 0
    # an older one: its replay carries its day (the replay page falls back to the published ones)
    assert row(3).locator(".recent-place").inner_text() == "won"
    assert (
        row(3).locator(".recent-replay").get_attribute("href")
        == f"#replay=r0003&daily=fours-up&date={old_date}"
    )
    assert row(3).locator(".recent-analysis").count() == 0
    local_date = page.evaluate("(t) => new Date(t).toLocaleDateString()", old_at)
    assert row(3).locator(".recent-when").inner_text() == local_date

    assert row(4).locator(".recent-kind").get_attribute("href") == "#arena=hourly-racing-aces-1"
    assert row(4).locator(".recent-place").inner_text() == "3rd of 4"
    assert row(4).locator(".recent-analysis").get_attribute("href") == "#race=r0004&analysis"
    shot(page, "lobby-recent-races-rows")

    # "More": up to 20
    more = page.locator("#recent-more")
    assert more.inner_text() == "More (3)"
    more.click()
    expect(rows).to_have_count(8)
    assert row(5).locator(".recent-kind").inner_text() == "vs bot"
    assert row(5).locator(".pill.rated").count() == 1 and row(5).locator(".recent-rating").count() == 0
    assert row(6).locator(".recent-place").inner_text() == "11th of 12"
    assert (
        row(7).locator(".recent-replay").get_attribute("href")
        == f"#replay=r0007&daily=racing-aces&date={old_date}"
    )
    # the toggle holds through a re-render of the lobby
    page.evaluate("window.solrace.render()")
    expect(rows).to_have_count(8)
    page.locator("#recent-more").click()
    expect(rows).to_have_count(5)
    assert page.locator("#recent-more").inner_text() == "More (3)"

    # left open past the day's close: the rows redraw by themselves (their times, and today's
    # daily attempt's replay, no longer sealed), with no request and no re-render of the lobby
    page.evaluate(
        """(at) => { const c = window.solrace.conn; const pinned = c.now.bind(c); const shift = at - pinned();
             c.now = () => pinned() + shift; }""",
        today + day + 3 * 3_600_000,
    )
    expect(row(2).locator(".recent-replay")).to_have_count(1, timeout=30_000)
    assert row(2).locator(".recent-sealed").count() == 0
    assert row(0).locator(".recent-when").inner_text() != "2 h ago"

    # words.js: the places and signs
    got = page.evaluate(
        """async () => { const w = await import("/js/words.js");
          return [[1, 2, 3, 4, 11, 12, 13, 21, 22, 101, 111].map(w.ordinal), [5, -3, 0].map(w.signedText),
                  [w.agoText(1000, 1000 + 59_000), w.agoText(0, 5 * 60_000), w.agoText(0, 23 * 3_600_000 + 59 * 60_000)]]; }"""
    )
    assert got[0] == ["1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st", "111th"]
    assert got[1] == ["+5", "\u22123", "\u00b10"]
    assert got[2] == ["just now", "5 min ago", "23 h ago"]


def test_a_race_of_ones_own_is_listed_as_practice(new_page):
    """A private race of one seat (the tiles' Practice button) reads "practice", not "private",
    which says only that nobody else could join it; a private race of several stays "private"."""
    page = new_page("solo")
    page.wait_for_function("window.solrace.app.me !== null")
    now = page.evaluate("window.solrace.conn.now()")

    def race(i: int, players: int) -> dict:
        return dict(
            race=f"r{i:04d}", game="fours-up", kind="private", at=now - 60_000 * (i + 1), rank=1,
            players=players, status="finished", home=30, total=104, moves=80, time_ms=90_000,
            rated=False, private=True,
        )  # fmt: skip

    page.evaluate(SET_RECENT, [race(0, 1), race(1, 2)])
    kinds = page.locator("#recent-races li.recent-race .recent-kind")
    expect(kinds).to_have_text(["practice", "private"])
