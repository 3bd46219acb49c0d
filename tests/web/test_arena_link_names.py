"""The arena list's links tell the arenas apart to a screen reader: the hourly arenas share a name
("Hourly Racing Aces": the one over, the one running, the next, the one after), and a list of
links all named alike said nothing of which was which. Each link's name carries its state and its
UTC start."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.timeout(120)

LIST = """async () => {
  const { h } = await import("./js/dom.js");
  const { arenaListEl } = await import("./js/arena_views.js");
  const now = Date.UTC(2026, 0, 5, 14, 10);
  const at = (hh) => Date.UTC(2026, 0, 5, hh, 0);
  const arena = (id, starts, status) => ({ id, name: "Hourly Racing Aces", game: "racing-aces", starts,
    ends: starts + 30 * 60_000, status, players: 0, final: status === "over" });
  const list = { now, arenas: [arena("a13", at(13), "over"), arena("a14", at(14), "running"),
    arena("a15", at(15), "upcoming"), arena("a16", at(16), "upcoming")] };
  const box = document.createElement("div");  // beside #main, which the lobby redraws
  box.id = "arena-list-test";
  box.append(arenaListEl(h, list, null, now));
  document.body.append(box);
}"""


def test_each_arena_link_says_which_arena(new_page):
    page = new_page("ari")
    page.evaluate(LIST)
    box = page.locator("#arena-list-test")
    expect(box.get_by_role("link")).to_have_count(4)
    for name in (
        "Hourly Racing Aces, over, started 13:00 UTC",
        "Hourly Racing Aces, running, started 14:00 UTC",
        "Hourly Racing Aces, starts 15:00 UTC",
        "Hourly Racing Aces, starts 16:00 UTC",
    ):
        expect(box.get_by_role("link", name=name, exact=True)).to_have_count(1)
