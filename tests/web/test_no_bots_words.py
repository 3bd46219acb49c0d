"""A bot asked for while every bot is busy ("Race a bot…", "Add a bot", a rematch with a bot):
the page said the server's own words, "No bot: no bot worker has a free slot: retry later",
a word for its processes and their slots. It says now that every bot is racing already, and
when to try again. The other refusal of that code, the player's own bots waiting already,
keeps the server's sentence, which says what to do."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.timeout(60)

SAY = """async (msg) => {
  const { errorText } = await import("./js/words.js");
  return errorText({ code: "no-bots", message: msg });
}"""


def test_every_bot_busy_is_said_in_a_players_words(new_page):
    page = new_page("botless")
    said = page.evaluate(SAY, "no bot worker has a free slot: retry later")
    assert said == "Every bot is racing already: try again in a minute."
    for jargon in ("worker", "slot"):
        assert jargon not in said


def test_your_own_bots_waiting_keep_the_servers_sentence(new_page):
    page = new_page("botful")
    msg = "you have 2 bots waiting for a race to start already: start that race, or wait for them to leave"
    assert page.evaluate(SAY, msg) == msg
