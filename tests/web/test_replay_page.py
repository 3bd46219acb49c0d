"""The replay page (#replay=RACE) in headless Chromium: what it says of an id that names no race
(the server's `no-such-race` is the same for a mistyped id and an expired race; an id not shaped
like a race id is mistyped for sure), and its players listed by place, as the result lists them."""

from __future__ import annotations

import pytest
from waiting import DEADLINE

from .conftest import shot

pytestmark = pytest.mark.timeout(180)

NO_SUCH_RACE = "No race has this id: it may be mistyped, or too old to be kept."
NOT_A_RACE_ID = "This is not a race id (an r and 16 hex digits): check the link."


def replay_error(page, rid: str) -> str:
    page.goto(page.url.split("#")[0] + f"#replay={rid}")
    page.wait_for_selector("#replay-error")
    return page.locator("#replay-error").inner_text()


def test_an_id_that_names_no_race(new_page):
    page = new_page("typo")
    # shaped like a race id ("r" and 16 hex digits), but no race has it: mistyped or expired
    assert replay_error(page, "r0123456789abcdef") == NO_SUCH_RACE
    assert page.locator("#replay-page").count() == 0
    assert page.locator('#main a[href^="#watch="]').count() == 0  # nothing to watch either
    shot(page, "replay-no-such-race")
    # not shaped like one: mistyped, whatever the server keeps
    assert replay_error(page, "nonexistent") == NOT_A_RACE_ID
    assert page.locator('#main a[href^="#watch="]').count() == 0
    shot(page, "replay-not-a-race-id")


def test_the_replay_lists_players_by_place(new_page, make_bot):
    """The race's first seat makes no move, the second plays: the second is #1, listed first."""
    first, second = make_bot("seat-one"), make_bot("seat-two")
    snap = first.call(lambda c: c.create("racing-aces", seats=2, time_limit_s=120))
    rid = snap.race
    second.call(lambda c: c.join(rid))
    for bot in (first, second):
        bot.call(lambda c: c.ready(rid))
    for bot in (first, second):
        bot.call(lambda c: c.wait_for("start", lambda ev: ev.race == rid, timeout=DEADLINE))
    second.play(rid, delay=0.05, max_moves=20)
    second.task.result(DEADLINE)  # 20 moves made, or none left
    for bot in (first, second):
        bot.call(lambda c: c.finish(rid))
    end = first.call(lambda c: c.wait_for("end", lambda ev: ev.race == rid, timeout=DEADLINE))
    by_place = [r.player for r in sorted(end.ranking, key=lambda r: r.rank)]
    assert by_place == [second.client.player, first.client.player], end.ranking

    page = new_page("replay-fan")
    page.goto(page.url.split("#")[0] + f"#replay={rid}")
    page.wait_for_selector("#replay-page .replay-player .pile")
    panels = page.locator(".replay-player")
    assert [panels.nth(i).get_attribute("data-player") for i in range(panels.count())] == by_place
    assert [panels.nth(i).locator(".rank").inner_text() for i in range(panels.count())] == ["#1", "#2"]
    # the result table, in the same order
    names = page.locator("#replay-page .ranking tbody td.name").all_inner_texts()
    assert names == ["seat-two", "seat-one"]
    shot(page, "replay-by-place", full_page=True)


def test_space_on_a_replay_button_presses_it_and_plays_from_nowhere(new_page, make_bot):
    """Space toggled the auto-play whatever had the focus: on "« Deal" it played instead of going
    to the deal (an accessibility audit). Now a focused button takes its Space."""
    bot = make_bot("spaced")
    rid = bot.call(lambda c: c.create("racing-aces", seats=1, time_limit_s=120)).race
    bot.call(lambda c: c.ready(rid))
    bot.call(lambda c: c.wait_for("start", lambda ev: ev.race == rid, timeout=DEADLINE))
    bot.play(rid, delay=0.02, max_moves=8)
    bot.task.result(DEADLINE)
    bot.call(lambda c: c.finish(rid))
    bot.call(lambda c: c.wait_for("end", lambda ev: ev.race == rid, timeout=DEADLINE))

    page = new_page("space-replay")
    page.goto(page.url.split("#")[0] + f"#replay={rid}")
    page.wait_for_selector("#replay-first")
    page.keyboard.press("End")  # (nothing focused: the page's keys) to the end
    page.wait_for_function("window.solrace.replayPage.step > 0")
    page.focus("#replay-first")
    page.keyboard.press(" ")
    page.wait_for_function("window.solrace.replayPage.step === 0")
    assert not page.evaluate("!!window.solrace.replayPage.timer")  # pressed, not auto-play
    page.evaluate("document.activeElement.blur()")
    page.keyboard.press(" ")
    page.wait_for_function("!!window.solrace.replayPage.timer || window.solrace.replayPage.step > 0")


def test_a_replay_boards_piles_are_named_for_a_screen_reader(new_page, make_bot):
    """A read-only board's cards were read without their pile (an accessibility audit): each pile
    is a group named by its pile, its count and its face-down cards (Rouge et Noir deals its
    tableau face down but for each pile's top card)."""
    bot = make_bot("named")
    rid = bot.call(lambda c: c.create("rouge-et-noir", seats=1, time_limit_s=120)).race
    bot.call(lambda c: c.ready(rid))
    bot.call(lambda c: c.wait_for("start", lambda ev: ev.race == rid, timeout=DEADLINE))
    bot.call(lambda c: c.finish(rid))
    bot.call(lambda c: c.wait_for("end", lambda ev: ev.race == rid, timeout=DEADLINE))

    page = new_page("named-piles")
    page.goto(page.url.split("#")[0] + f"#replay={rid}")
    page.wait_for_selector("#replay-page .replay-player .pile")
    labels = page.eval_on_selector_all(
        "#replay-page .replay-player .pile",
        "els => els.map(e => [e.dataset.pile, e.getAttribute('role'), e.getAttribute('aria-label')])",
    )
    by_pile = {pile: (role, label) for pile, role, label in labels}
    assert all(role == "group" for role, _ in by_pile.values()), labels
    assert by_pile["s"][1].startswith("stock, ") and by_pile["s"][1].endswith(" cards")
    assert by_pile["f0"][1] == "colour foundation 1, empty"  # as the hints name it
    assert by_pile["f4"][1] == "sequence foundation 1, empty"
    assert by_pile["t0"][1] == "tableau 1, 8 cards, 7 face down"
    assert by_pile["t8"][1] == "tableau 9, 1 card"
    assert by_pile["t9"][1] == "tableau 10, empty"
