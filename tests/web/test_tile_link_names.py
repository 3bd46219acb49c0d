"""A lobby tile's links are named with their game, as the buttons beside them are ("Quick match:
Racing Aces"): a screen reader's list of links read "Daily" and "How to play" four times each,
beside the header's own "Daily" and "How to play". The tile's fanned cards are a picture, not
text read out as "A♠ 6♥ 7♦ K♣" between the game's name and its description."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.timeout(120)


def test_each_tile_names_its_links_and_hides_its_picture(new_page):
    page = new_page("rita", width=390, height=844)
    expect(page.locator('.tile[data-game="fours-up"] [data-act="daily"]')).to_be_visible()
    for game, name in [("racing-aces", "Racing Aces"), ("fours-up", "Fours Up")]:
        tile = page.locator(f'.tile[data-game="{game}"]')
        expect(tile.get_by_role("link", name=f"Daily challenge: {name}", exact=True)).to_have_count(1)
        expect(tile.get_by_role("link", name=f"How to play: {name}", exact=True)).to_have_count(1)
        snapshot = tile.aria_snapshot()
        assert "♠" not in snapshot and "♣" not in snapshot, snapshot
    # the names a screen reader lists of the tiles' links are all different
    names = page.locator("#main .tile a").evaluate_all(
        "(links) => links.map((a) => a.getAttribute('aria-label') || a.textContent.trim())"
    )
    assert len(names) == len(set(names)), names
