"""A race's lobby panel (before the start) is drawn again at each change of the lobby (a rival
comes, is ready, the reply to your own "I'm ready"): it kept neither the focus, which fell back
to the page's body (a keyboard player on "I'm ready" lost their place when a rival came, and
after pressing it), nor the bot's level chosen beside "Add a bot", back to Medium. Both stay now;
the level's box has a name a screen reader says."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .test_browser import create_in_ui

pytestmark = pytest.mark.timeout(120)


def test_the_lobby_panel_keeps_the_focus_and_the_bots_level(new_page, make_bot):
    page = new_page("keya")
    rid = create_in_ui(page, "fours-up", 3)
    level = page.locator("#lobby-panel .add-bot select")
    expect(level).to_have_accessible_name("Bot's level")
    level.select_option("search")
    ready = page.locator("#ready-btn")
    ready.focus()
    rival = make_bot("rival")
    rival.call(lambda c: c.join(rid))
    expect(page.locator(f'#players li[data-player="{rival.client.player}"]')).to_be_visible()
    expect(ready).to_be_focused()
    expect(level).to_have_value("search")
    page.keyboard.press("Enter")  # the reply redraws the panel
    expect(ready).to_have_text("Not ready")
    expect(ready).to_be_focused()
    expect(level).to_have_value("search")
