"""An arena race's page in headless Chromium: the arena's name, Berserk during the countdown
(the server's race data shows it), the arena points under the result and the way back to the
arena instead of races outside it; and the podium and standings linking only players with an
account, as the standings rows say (`account`), without asking anyone's `profile`."""

from __future__ import annotations

import re

import pytest
from must import must
from playwright.sync_api import expect

from protocol import messages as m

from .arena_races import account_and_rival_race_a_short_arena, arena_server
from .conftest import shot
from .test_browser import play_by_clicking, wait_board

pytestmark = pytest.mark.timeout(180)

# Count the frames the page sends, by type (window.sent), from now on.
COUNT_SENT = """() => {
  const c = window.solrace.conn;
  window.sent = {};
  const send = c.sendRaw.bind(c);
  c.sendRaw = (msg) => { window.sent[msg.t] = (window.sent[msg.t] || 0) + 1; return send(msg); };
}"""


@pytest.fixture(scope="module")
def web_server(tmp_path_factory):
    """Clients may create arenas, none is scheduled, fast loops; a countdown long enough for a
    click on Berserk under load."""
    srv = arena_server(tmp_path_factory.mktemp("web-arena-race"), countdown_ms=6000)
    yield srv
    srv.stop()


def test_arena_race_page_berserk_points_and_back_to_the_arena(new_page, make_bot):
    rival = make_bot("berserk-rival")
    rival.call(
        lambda c: c.request(
            m.ArenaCreate(
                arena="race-cup", game="racing-aces", duration_ms=120_000, time_limit_s=60, name="Race Cup"
            )
        )
    )
    page = new_page("berserker")
    me = page.evaluate("window.solrace.app.me.player")
    page.goto(page.url.split("#")[0] + "#arena=race-cup")
    page.click("#arena-join")
    page.wait_for_selector("#arena-withdraw")

    # the rival joins; the pairing opens the race page, in its countdown
    rival.call(lambda c: c.request(m.ArenaJoin(arena="race-cup")))
    page.wait_for_url(re.compile(r"#race="), timeout=30_000)
    rid = must(re.search(r"#race=([\w-]+)", page.url)).group(1)
    # Berserk first: the countdown is the click's whole window, and a loaded machine spent it
    # on what came before the click (a screenshot, the rival's withdrawal). The server takes a
    # berserk only in the countdown: its mark on the player's row says the click was in time.
    page.click("#race-berserk")
    page.wait_for_selector(f'#players li[data-player="{me}"] .p-berserk')
    page.wait_for_selector("#race-berserked")
    assert page.locator("#race-berserk").count() == 0
    rival.call(lambda c: c.request(m.ArenaWithdraw(arena="race-cup")))  # one race only: no re-pairing
    page.wait_for_function("document.querySelector('#race-title').textContent.startsWith('Race Cup · ')")
    shot(page, "arena-race-countdown")
    state = rival.call(lambda c: c.request(m.Resync(race=rid)))
    assert [p.berserk for p in state.race.players if p.player == me] == [True]

    # after the start the server refuses a berserk: the control is gone
    wait_board(page)
    assert page.locator("#race-berserk-box:visible").count() == 0
    assert page.locator("#race-berserk").count() == 0
    assert page.locator("#race-arena").get_attribute("href") == "#arena=race-cup"

    # we move, the rival never does: a berserk win, 2 + 1 points
    assert play_by_clicking(page, 2)
    rival.call(lambda c: c.finish(rid))
    page.once("dialog", lambda d: d.accept())
    page.click("#finish-btn")
    page.wait_for_selector("#result-panel")
    page.wait_for_selector("#arena-points", timeout=30_000)
    assert "+3 arena points" in page.locator("#arena-points").inner_text()
    assert "pairs you again" in page.locator("#arena-next").inner_text()
    actions = page.locator("#result-panel .result-actions").inner_text()
    assert "Back to the arena" in actions
    assert "Quick match" not in actions and "New race" not in actions and "Rematch" not in actions
    shot(page, "arena-race-result", full_page=True)

    page.click("#to-arena")
    # the page first draws the standings it had from the earlier visit, then the fresh ones
    expect(page.locator(f'#arena-standings tr[data-player="{me}"] td.points')).to_have_text("3")


def test_podium_links_only_players_with_an_account(new_page, make_bot):
    ada, guest = make_bot("link-ada"), make_bot("link-guest")
    # both move (nobody absent): ada, with more moves, first (2 points); the guest second (1 point)
    account_and_rival_race_a_short_arena(
        ada, guest, account="link-ada", arena="link-cup", name="Link Cup", moves=(2, 1)
    )

    page = new_page("link-fan")
    page.evaluate(COUNT_SENT)  # the frames the page sends from here on, by type
    page.goto(page.url.split("#")[0] + "#arena=link-cup")
    page.wait_for_selector('#arena-winners li[data-rank="2"]', timeout=60_000)
    a, g = ada.client.player, guest.client.player
    # the rows say who is an account (`account`, docs/protocol.md §5a): the account's name links
    # to its profile as soon as the podium is drawn, the guest's never does
    assert page.locator(f'#arena-winners li[data-player="{a}"] a[href="#profile={a}"]').count() == 1
    assert page.locator(f'#arena-winners li[data-player="{g}"]').count() == 1
    assert page.locator(f'#arena-winners li[data-player="{g}"] a').count() == 0
    assert "link-guest" in page.locator(f'#arena-winners li[data-player="{g}"]').inner_text()
    # the standings likewise
    assert page.locator(f'#arena-standings tr[data-player="{a}"] a[href="#profile={a}"]').count() == 1
    assert page.locator(f'#arena-standings tr[data-player="{g}"] a').count() == 0

    # a bot on the podium (bot ids start "bot-"): not linked, and no profile asked for it
    page.evaluate(
        """() => { const p = window.solrace.arenaPage;
          p.board = { ...p.board, top: [...p.board.top, { rank: 3, player: "bot-greedy-x1", name: "Greedy bot",
            points: 1, races: 1, wins: 0, streak: 0, fire: false }] };
          p.render(); }"""
    )
    page.wait_for_selector('#arena-winners li[data-player="bot-greedy-x1"]')
    assert page.locator('#arena-winners li[data-player="bot-greedy-x1"] a').count() == 0
    assert page.locator(f'#arena-winners li[data-player="{g}"] a').count() == 0
    assert page.locator(f'#arena-winners li[data-player="{a}"] a').count() == 1
    # not one `profile` asked to know whom to link
    assert page.evaluate("window.sent.arena_standings || 0") >= 1
    assert page.evaluate("window.sent.profile || 0") == 0
    shot(page, "arena-podium-links")

    # the link opens the account's profile
    page.click(f'#arena-winners li[data-player="{a}"] a')
    page.wait_for_selector(f'#profile[data-player="{a}"]')
