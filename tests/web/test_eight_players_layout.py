"""A race of eight (the most seats) on a phone (390x844) and a wide screen (1280x860), its players
named in CJK characters and emoji: every player's progress row can be brought into view and is
then uncovered (the page's own row among them), each name stays in its row, beside its status,
whole, and nothing is wider than the screen; a spectator's rows likewise; and the final ranking's
table fits the screen, each name whole in its cell. (The terminal's bars had cut off rows 5-8 at
80x24, the player's own among them.) Screenshots: test-artifacts/web/eight-players-*.png."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .conftest import shot
from .test_browser import create_in_ui, wait_board

pytestmark = pytest.mark.timeout(240)

ME = "我的名字🙂"
# Wide characters and emoji, a name of 24 CJK characters without a space (the server's longest),
# twelve emoji, a flag (two regional indicators), Hangul, kana.
RIVALS = [
    "王小明",
    "🦊 狐狸 🦊",
    "さくら",
    "김민준",
    "🎉" * 12,
    "漢字" * 12,
    "🚀 Ŝpace 🇯🇵",
]

# Each element of `sel`, scrolled to the middle of the screen: whether it is then in view and
# what a tap at its corners and centre reaches (it, or something over it: the sticky header, a
# phone's race line).
REACHED = """(sel) => [...document.querySelectorAll(sel)].map((el) => {
  el.scrollIntoView({ block: "center", behavior: "instant" });
  const r = el.getBoundingClientRect();
  // (inside the rounded corners, which a tap does not reach)
  const points = [[r.left + 10, r.top + 10], [r.right - 10, r.top + 10], [r.left + 10, r.bottom - 10], [r.right - 10, r.bottom - 10],
                  [(r.left + r.right) / 2, (r.top + r.bottom) / 2]];
  const over = points.map(([x, y]) => document.elementFromPoint(x, y)).filter((e) => !e || !el.contains(e))
    .map((e) => (e ? e.className || e.tagName : "nothing"));
  return { who: el.dataset.player, inView: r.top >= 0 && r.bottom <= innerHeight && r.left >= 0 && r.right <= innerWidth, over };
})"""

# Each progress row's name: its text, whether its box lies in the row, left of the status
# pills, and whether it is cut (an ellipsis).
NAMES = """() => [...document.querySelectorAll('#players li')].map((li) => {
  const row = li.getBoundingClientRect(), name = li.querySelector('.pname'), box = name.getBoundingClientRect();
  const pills = li.querySelector('.prog-pills').getBoundingClientRect();
  return { name: name.textContent, inRow: box.left >= row.left && box.right <= row.right,
           besidePills: box.right <= pills.left + 1, cut: name.scrollWidth > name.clientWidth + 1,
           rowOverflows: li.scrollWidth > li.clientWidth + 1 };
})"""

RANKING = """() => {
  const table = document.querySelector('#result-panel table.ranking'), panel = document.querySelector('#result-panel');
  return { fits: table.getBoundingClientRect().right <= panel.getBoundingClientRect().right + 1,
           names: [...table.querySelectorAll('td.name')].map((c) => ({ text: c.textContent, cut: c.scrollWidth > c.clientWidth + 1 })) };
}"""


def check_rows(page, players: set[str]) -> None:
    rows = page.evaluate(REACHED, "#players li")
    assert {r["who"] for r in rows} == players, rows
    for r in rows:
        assert r["inView"] and not r["over"], r
    for n in page.evaluate(NAMES):
        assert n["inRow"] and n["besidePills"] and not n["cut"] and not n["rowOverflows"], n
    assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")


@pytest.mark.parametrize(("width", "height"), [(390, 844), (1280, 860)])
def test_eight_players_rows_and_ranking_with_wide_names(new_page, make_bot, width, height):
    page = new_page(ME, width=width, height=height)
    rid = create_in_ui(page, "racing-aces", 8)
    bots = [make_bot(n) for n in RIVALS]
    for b in bots:
        b.call(lambda c: c.join(rid))
        b.call(lambda c: c.ready(rid))
    page.wait_for_function("document.querySelectorAll('#players li .pill.p-ready').length === 7")
    page.click("#ready-btn")
    wait_board(page)
    me = page.evaluate("window.solrace.app.me.player")
    players = {me} | {b.client.player for b in bots}
    check_rows(page, players)
    assert {n["name"] for n in page.evaluate(NAMES)} == {ME, *RIVALS}
    # the page's own row: marked, and reached like the others
    expect(page.locator(f'#players li.mine[data-player="{me}"]')).to_contain_text("(you)")
    page.evaluate("window.scrollTo(0, 0)")
    shot(page, f"eight-players-race-{width}", full_page=True)

    # a spectator's rows
    watcher = new_page("观众👀", width=width, height=height)
    watcher.evaluate(f"location.hash = '#watch={rid}'")
    expect(watcher.locator("#players li")).to_have_count(8)
    check_rows(watcher, players)
    shot(watcher, f"eight-players-watch-{width}", full_page=True)

    for b in bots:
        b.call(lambda c: c.finish(rid))
    page.once("dialog", lambda d: d.accept())
    page.click("#finish-btn")
    expect(page.locator("#result-panel table.ranking tbody tr")).to_have_count(8)
    ranking = page.evaluate(RANKING)
    assert ranking["fits"], ranking
    assert sorted(c["text"] for c in ranking["names"]) == sorted([ME, *RIVALS]), ranking
    assert not [c for c in ranking["names"] if c["cut"]], ranking
    for r in page.evaluate(REACHED, "#result-panel table.ranking tbody tr"):
        assert r["inView"] and not r["over"], r
    check_rows(page, players)  # ranked now: "#1" before each name
    page.evaluate("window.scrollTo(0, 0)")
    shot(page, f"eight-players-ranking-{width}", full_page=True)
