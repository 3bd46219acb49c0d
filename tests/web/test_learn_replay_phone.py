"""The browser client for a new player: the rules engine the page carries, the
how-to-play pages with their playable examples, the replay viewer on a real
finished race, phones (360×640 with touch events), rival toasts and the
labelled Time column. Screenshots: test-artifacts/web/.
"""

from __future__ import annotations

import random
import re

import pytest
from must import must
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from waiting import DEADLINE, wait_until

from protocol import rules

from .conftest import sha256_hex, shot
from .test_browser import GAMES, create_in_ui, pick_move, race_against, wait_board, you

pytestmark = pytest.mark.timeout(240)

PHONE = {"width": 360, "height": 640}


def phone_page(browser, web_server, errors: list[str], name: str):
    ctx = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True, device_scale_factor=2)
    page = ctx.new_page()
    page.on("pageerror", lambda e: errors.append(f"{name}: {e}"))
    page.set_default_timeout(DEADLINE * 1000)
    page.add_init_script(f"localStorage.setItem('solrace.name', {name!r})")
    page.goto(web_server.http + "/")
    page.wait_for_selector(".net.online")
    return ctx, page


@pytest.fixture
def phone(browser, web_server):
    contexts = []
    errors: list[str] = []

    def make(name: str = "pocket"):
        ctx, page = phone_page(browser, web_server, errors, name)
        contexts.append(ctx)
        return page

    yield make
    for ctx in contexts:
        ctx.close()
    assert not errors, f"uncaught errors in the page: {errors}"


def no_sideways_scroll(page, width: int) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    right = page.evaluate(
        "Math.max(...[...document.querySelectorAll('.pile, table, .panel')].map(e => e.getBoundingClientRect().right))"
    )
    assert right <= width + 0.5, right


def labels_whole(page, root: str) -> None:
    """Every pile label under `root` is whole (Fours Up's "WASTE" above its one-card pile once
    read "WAS…" at 360 px, and "STOCK" on the smaller spectator and replay boards "STO…")."""
    clipped = page.evaluate(
        f"[...document.querySelectorAll('{root} .glabel')].filter(e => e.scrollWidth > e.clientWidth).map(e => e.textContent)"
    )
    assert clipped == [], (root, clipped)


def board_card(page, root: str, pile: str, k: int = 1):
    """The card at the bottom of the top `k` cards of a pile."""
    cards = page.locator(f'{root} .pile[data-pile="{pile}"] .card:not(.under)')
    return cards.nth(cards.count() - k)


def shown(find, what: str):
    """`find()`'s element and its box, once it has one: a board redrawn between finding a card
    and measuring it can leave no box for that moment (a test once failed on `None["width"]`)."""

    def located():
        el = find()
        try:
            box = el.bounding_box(timeout=2000)
        except PlaywrightTimeout:  # the pile had fewer cards by the time it was asked
            return None
        return (el, box) if box else None

    return wait_until(located, what=what)


# Under heavy load a tap is sometimes lost: once "I'm ready" (the race stayed in its lobby, no
# error shown), once a card (never selected); probably the touch's end reached the busy page
# late and the browser took the touch for a long press. A tap that changed nothing is tapped again.
# (The Racing Aces "tap on t0 at n=2 changed nothing" was not a lost tap: a move's destination,
# then the next card scrolled to the same spot, tapped within the browser's double-tap time,
# made a dblclick that sent the card home at once; the retry found it gone. A double-tap now
# needs both taps on its card: test_a_double_tap_sends_home_only_a_card_tapped_twice.)
TAP_WAIT_MS = 10_000
TAPS = 3


def tap_until(page, locate, done: str, unchanged: str, what: str) -> None:
    """Tap the element `locate()` returns (with the position to tap) until the JS `done`
    holds; tap again only while the JS `unchanged` says the page is as before the tap."""
    for _ in range(TAPS):
        el, position = locate()
        # Mid-screen first, as a player would have it: a card at the screen's bottom edge (its
        # top strip 2 px above it, on the tall Double Aces and Kings board) took no tap, even
        # with nothing selected and the card's pile offering its move.
        el.evaluate("(e) => e.scrollIntoView({ block: 'center', inline: 'nearest' })")
        el.tap(position=position)
        try:
            page.wait_for_function(done, timeout=TAP_WAIT_MS)
            return
        except PlaywrightTimeout:
            if not page.evaluate(unchanged):
                raise AssertionError(f"a tap on {what} did something else") from None
    # What the last tap hit: the element at its point, and whether the board offered that pile.
    box = el.bounding_box()
    hit = None
    if box is not None:
        x = box["x"] + (position["x"] if position else box["width"] / 2)
        y = box["y"] + (position["y"] if position else box["height"] / 2)
        hit = page.evaluate(
            """([x, y]) => { const e = document.elementFromPoint(x, y); const p = e && e.closest('.pile');
              const b = window.solrace.app.board, you = window.solrace.app.you;
              return { x, y, tag: e && e.tagName, cls: e && e.className, pile: p && p.dataset.pile,
                       offered: p && b ? [...b.legal.from.keys()].filter((k) => k.startsWith(p.dataset.pile + ":")) : null,
                       listed: p && you ? (you.legal || []).filter((m) => m.startsWith(p.dataset.pile)) : null }; }""",
            [x, y],
        )
    state = page.evaluate(
        """() => { const { app, conn } = window.solrace; const b = app.board, r = app.race;
          return { conn: conn.status, race: r && r.status, me: r && (r.players.find(p => p.player === app.me.player) || {}).status,
                   you: app.you && { n: app.you.n, status: app.you.status, legal: (app.you.legal || []).length },
                   board: b && { busy: b.busy, sel: b.sel, from: b.legal.from.size }, scrollY: window.scrollY }; }"""
    )
    raise AssertionError(f"{TAPS} taps on {what} changed nothing; the page had {state}; the tap hit {hit}")


def tap_ready(page) -> None:
    """Tap "I'm ready" until the page knows the server has it (tapping again is safe: while
    the page shows you not ready, the button asks for ready, never for not ready)."""
    ready = """() => { const { app } = window.solrace; const r = app.race;
        return !!r && (r.status !== 'lobby' || r.players.some(p => p.player === app.me.player && p.ready)); }"""
    tap_until(page, lambda: (page.locator("#ready-btn"), None), ready, f"() => !({ready})()", "I'm ready")


def select_and_drop(page, root: str, move: str, tap: bool = False) -> None:
    """Play a move on a board by clicking (or tapping) its card, then its destination."""
    if move == "draw":
        pile = page.locator(f'{root} .pile[data-pile="s"]')
        pile.tap() if tap else pile.click()
        return
    src, dst = move.split(">")
    k = int(src.split(":")[1]) if ":" in src else 1
    src = src.split(":")[0]

    def card():
        el, box = shown(lambda: board_card(page, root, src, k), f"card {k} of {src}")
        return el, {"x": box["width"] / 2, "y": 5}  # the strip left visible

    def target():
        el, box = shown(lambda: page.locator(f'{root} .pile[data-pile="{dst}"]'), f"pile {dst}")
        return el, {"x": box["width"] / 2, "y": min(box["height"] - 4, box["width"] * 0.7)}

    targeted = f"() => document.querySelector('{root} .pile[data-pile=\"{dst}\"].target') !== null"
    selected = f"() => document.querySelector('{root} .selected') !== null"
    if not tap:
        el, position = card()
        el.click(position=position)
        page.wait_for_selector(f'{root} .pile[data-pile="{dst}"].target', timeout=DEADLINE * 1000)
        el, position = target()
        el.click(position=position)
        return
    tap_until(page, card, targeted, f"() => !({selected})()", f"card {k} of {src}")
    # Played: the selection and its targets are gone.
    tap_until(
        page, target, f"() => !({targeted})()", f"() => ({targeted})() && ({selected})()", f"pile {dst}"
    )


# ----------------------------------------------------------------------------- rules engine


def test_browser_rules_engine_matches_the_server_engine(new_page):
    """The page's rules engine deals every game as the server does and agrees on every legal move."""
    page = new_page("engine")
    rnd = random.Random(7)
    for game in GAMES:
        for seed in ("abc", rules.random_seed()):
            g = rules.deal(game, seed)
            moves: list[str] = []
            expected = [[g.view_text(), sorted(g.legal_moves())]]
            for _ in range(120):
                legal = g.legal_moves()
                if not legal:
                    break
                home = [m for m in legal if ">f" in m and not m.startswith("f")]
                move = rnd.choice(home) if home and rnd.random() < 0.7 else rnd.choice(legal)
                g.play(move)
                moves.append(move)
                expected.append([g.view_text(), sorted(g.legal_moves())])
            got = page.evaluate(
                """async ([game, seed, moves]) => {
                    const r = await import("/js/rules.js");
                    const g = r.deal(game, seed);
                    const out = [[g.viewText(), g.legalMoves().sort()]];
                    for (const m of moves) { g.play(m); out.push([g.viewText(), g.legalMoves().sort()]); }
                    return out;
                }""",
                [game, seed, moves],
            )
            assert got == expected, f"{game} {seed}"
    # the page reads the notation as the server does: what the server calls bad is no move
    bad = ["t2:1>t5", "t2:02>t5", "t2:0>t5", "t02>t5", "t0:-2>t1", "t0:>t1", "t0>t0"]
    parsed = page.evaluate(
        """async (bad) => { const r = await import("/js/rules.js"); const g = r.deal("racing-aces", "abc");
                            return bad.map((m) => g.parse(m)); }""",
        bad,
    )
    assert parsed == [None] * len(bad)
    for m in bad:
        with pytest.raises(rules.IllegalMove):
            rules.deal("racing-aces", "abc").check(m)


# ----------------------------------------------------------------------------- how to play

SOLUTIONS = {
    "racing-aces": ["r0>f0", "w>f0", "t0>f12", "t0>f8"],
    "double-aces-and-kings": ["r0>f0", "t1>f0", "w>f8"],
    "rouge-et-noir": ["t2>f0", "t3>f1", "t0>t1", "t1:2>t4"],
    "fours-up": ["t0>f0", "t2>f1", "t0:2>t1"],
}


@pytest.mark.parametrize("game", GAMES)
def test_how_to_play_page(new_page, game):
    page = new_page("learner")
    page.click('.topnav a[data-nav="howto"]')
    page.wait_for_selector("#howto")
    page.click(f'.tabs a[data-game="{game}"]')
    page.wait_for_selector(f'#howto[data-game="{game}"] #howto-board .pile')
    text = page.locator("#howto").inner_text()
    for heading in ("Layout", "Moves", "Goal", "The piles"):
        assert heading in text
    assert page.locator("#howto .legend-list dt").count() >= 2
    shot(page, f"howto-{game}", full_page=True)
    for move in SOLUTIONS[game]:
        select_and_drop(page, "#howto-board", move)
    page.wait_for_selector("#howto-status.good")
    assert "Well done" in page.locator("#howto-status").inner_text()
    shot(page, f"howto-{game}-done", full_page=True)
    page.click("#howto-reset")
    page.wait_for_selector("#howto-status.muted")


def test_a_double_tap_sends_home_only_a_card_tapped_twice(phone):
    """A double-tap sends a card home only when both its taps were on that card. The browser
    makes a dblclick of two quick taps a few px apart even on two piles: the phone test's tap on
    a move's destination, then on the next card (scrolled to the same spot), sent that card home
    while it was only to be selected, and the taps that followed found it gone."""
    page = phone("doubler")
    page.goto(page.url.split("#")[0] + "#howto=racing-aces")
    page.wait_for_selector('#howto[data-game="racing-aces"] #howto-board .pile')
    played = "window.solrace.howtoPage.played.length"
    piles = "window.solrace.howtoPage.board.view.piles"
    r0, f0 = page.evaluate(f"[{piles}.r0.length, {piles}.f0.length]")

    def tap_card() -> tuple[float, float]:
        """Tap r0's top card (its move: r0>f0); where that pile's top card is then, in the viewport."""
        card, box = shown(lambda: board_card(page, "#howto-board", "r0"), "card 1 of r0")
        card.tap(position={"x": box["width"] / 2, "y": 5})
        _, box = shown(lambda: board_card(page, "#howto-board", "r0"), "card 1 of r0")
        return box["x"] + box["width"] / 2, box["y"] + 5

    def dblclick(at: tuple[float, float]) -> None:
        """The dblclick the browser makes of two quick taps, at the second one's point (sent
        here: whether the browser pairs two real taps depends on their timing)."""
        page.evaluate(
            """([x, y]) => document.querySelector('#howto-board')
                 .dispatchEvent(new MouseEvent('dblclick', { bubbles: true, clientX: x, clientY: y }))""",
            list(at),
        )

    page.locator('#howto-board .pile[data-pile="f4"]').tap()  # an empty foundation: nothing to do
    at = tap_card()
    page.wait_for_selector('#howto-board .pile[data-pile="f0"].target')
    dblclick(at)
    assert page.evaluate(played) == 0
    assert page.locator('#howto-board .pile[data-pile="f0"].target').count() == 1, "still selected"
    # A second tap on the card clears its selection; with the one before, a double-tap: home
    # (from the browser's own dblclick if it paired the two real taps, and the one sent here
    # then finds another card there, which was not tapped, and does nothing).
    dblclick(tap_card())
    page.wait_for_function(f"{played} === 1")
    assert page.evaluate(f"[{piles}.r0.length, {piles}.f0.length]") == [r0 - 1, f0 + 1]


def test_how_to_play_from_a_tile_and_on_a_phone(phone):
    page = phone("reader")
    page.locator('.tile[data-game="fours-up"] [data-act="howto"]').tap()
    page.wait_for_selector('#howto[data-game="fours-up"] #howto-board .pile')
    no_sideways_scroll(page, PHONE["width"])
    for move in SOLUTIONS["fours-up"]:
        select_and_drop(page, "#howto-board", move, tap=True)
    page.wait_for_selector("#howto-status.good")
    shot(page, "howto-phone", full_page=True)


# ----------------------------------------------------------------------------- phones


@pytest.mark.parametrize("game", GAMES)
def test_phone_board_first_and_fits(phone, game):
    """360×640 with touch: the board comes first, fits the width, takes taps; the result fits too."""
    page = phone(f"ph-{game[:8]}")
    create_in_ui(page, game, 1)
    tap_ready(page)
    wait_board(page)
    board = page.locator("#board").bounding_box()
    side = page.locator(".side").bounding_box()
    assert board["y"] < side["y"], "the board comes before the side panel"
    assert board["y"] < 200, board  # only the header and the clock above it
    assert page.locator("#clock-mini").is_visible()
    no_sideways_scroll(page, PHONE["width"])
    labels_whole(page, "#board")
    # a finger on a face-up card drags it; elsewhere on the board it scrolls the page up and down
    # (test_board_swipe_phone.py swipes both)
    assert page.evaluate("getComputedStyle(document.querySelector('#board')).touchAction") == "pan-y"
    assert (
        page.evaluate("getComputedStyle(document.querySelector('#board .card:not(.back)')).touchAction")
        == "none"
    )
    shot(page, f"phone360-{game}")
    # tap-tap plays
    for _ in range(3):
        move = must(pick_move(you(page)["legal"]))
        n0 = you(page)["n"]
        select_and_drop(page, "#board", move, tap=True)
        page.wait_for_function(f"window.solrace.app.you.n > {n0}")
    no_sideways_scroll(page, PHONE["width"])
    page.once("dialog", lambda d: d.accept())
    page.locator("#finish-btn").tap()
    page.wait_for_selector("#result-panel")
    no_sideways_scroll(page, PHONE["width"])
    shot(page, f"phone360-{game}-result", full_page=True)


def touch(cdp, kind: str, x: float | None = None, y: float | None = None) -> None:
    points = [] if x is None else [{"x": x, "y": y}]
    cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})


def test_phone_touch_drag_and_cancel(phone):
    """A finger drags a card to its destination without panning the page; a cancelled touch leaves no ghost."""
    page = phone("dragger")
    create_in_ui(page, "fours-up", 1)
    tap_ready(page)
    wait_board(page)
    cdp = page.context.new_cdp_session(page)
    events: list[str] = []
    page.evaluate(
        """() => { window.__ptr = [];
        for (const t of ['pointerdown','pointermove','pointerup','pointercancel'])
          document.querySelector('#board').addEventListener(t, e => window.__ptr.push(e.type + ':' + e.pointerType)); }"""
    )

    def drag_move() -> str | None:
        legal = you(page)["legal"]
        return next((m for m in legal if m != "draw" and not m.startswith("f") and ">f" not in m), None)

    def draw_until_drag_move() -> str:
        for _ in range(60):
            move = drag_move()
            if move:
                return move
            n0 = you(page)["n"]
            page.locator('#board .pile[data-pile="s"]').tap()
            page.wait_for_function(f"window.solrace.app.you.n > {n0}")
        raise AssertionError(f"no move to drag: {you(page)['legal']}")

    move = draw_until_drag_move()
    src, dst = move.split(">")
    k = int(src.split(":")[1]) if ":" in src else 1
    src = src.split(":")[0]
    _, card = shown(lambda: board_card(page, "#board", src, k), f"card {k} of {src}")
    _, target = shown(lambda: page.locator(f'#board .pile[data-pile="{dst}"]'), f"pile {dst}")
    scroll0 = page.evaluate("window.scrollY")
    n0 = you(page)["n"]
    x0, y0 = card["x"] + card["width"] / 2, card["y"] + 6
    x1, y1 = target["x"] + target["width"] / 2, target["y"] + min(target["height"] - 4, target["width"])
    touch(cdp, "touchStart", x0, y0)
    for i in range(1, 11):
        touch(cdp, "touchMove", x0 + (x1 - x0) * i / 10, y0 + (y1 - y0) * i / 10)
    assert page.locator(".drag-ghost").count() == 1
    shot(page, "phone-touch-dragging")
    touch(cdp, "touchEnd")
    page.wait_for_function(f"window.solrace.app.you.n > {n0}")
    assert page.locator(".drag-ghost").count() == 0
    assert page.evaluate("window.scrollY") == scroll0, "the page panned under the finger"
    events = page.evaluate("window.__ptr")
    assert "pointerdown:touch" in events and "pointermove:touch" in events and "pointerup:touch" in events

    # a drag the browser cancels: no ghost left, nothing played, the board still works
    movable = draw_until_drag_move()
    n1 = you(page)["n"]
    src = movable.split(">")[0]
    k = int(src.split(":")[1]) if ":" in src else 1
    _, card = shown(lambda: board_card(page, "#board", src.split(":")[0], k), f"card {k} of {src}")
    x0, y0 = card["x"] + card["width"] / 2, card["y"] + 6
    touch(cdp, "touchStart", x0, y0)
    for i in range(1, 6):
        touch(cdp, "touchMove", x0 + 8 * i, y0 + 10 * i)
    assert page.locator(".drag-ghost").count() == 1
    touch(cdp, "touchCancel")
    page.wait_for_function("document.querySelectorAll('.drag-ghost').length === 0")
    assert "pointercancel:touch" in page.evaluate("window.__ptr")
    assert page.evaluate("window.solrace.app.board.sel") is None
    assert you(page)["n"] == n1
    n2 = you(page)["n"]
    select_and_drop(page, "#board", must(pick_move(you(page)["legal"])), tap=True)
    page.wait_for_function(f"window.solrace.app.you.n > {n2}")


# ----------------------------------------------------------------------------- a race, its toasts, its replay


def test_race_toasts_time_column_and_replay(new_page, make_bot):
    """Race a bot; its finish shows a toast; the result labels the Time column; the replay
    re-deals the seed and steps through both boards, matching the server's rules move by move."""
    page = new_page("ada")
    rid = create_in_ui(page, "fours-up", 2)
    bot = make_bot("robo")
    race_against(page, bot, rid)
    bot.play(rid, delay=0.05, max_moves=12)
    for _ in range(6):
        move = must(pick_move(you(page)["legal"]))
        n0 = you(page)["n"]
        select_and_drop(page, "#board", move)
        page.wait_for_function(f"window.solrace.app.you.n > {n0}")
    bot.stop_playing()
    # on a phone the rivals' progress is on the line under the board (the side panel is below it)
    page.set_viewport_size(PHONE)
    page.wait_for_selector("#mini-rivals .mini-rival")
    page.wait_for_function(
        "document.querySelector('#mini-rivals').textContent === "
        "'robo ' + window.solrace.app.race.players.find(p => p.name === 'robo').home"
    )
    shot(page, "phone360-race-with-rival")
    page.set_viewport_size({"width": 1280, "height": 860})
    bot.call(lambda c: c.finish(rid))
    toast = page.locator(".toast", has_text="robo finished with")
    toast.wait_for()
    shot(page, "toast-rival-finished")
    page.once("dialog", lambda d: d.accept())
    page.click("#finish-btn")
    page.wait_for_selector("#result-panel")
    header = page.locator("#result-panel .ranking th").last
    assert header.inner_text() == "Time" and "Winners" in header.get_attribute("title")
    times = page.locator("#result-panel .ranking td.time .tlabel").all_inner_texts()
    assert times == ["stopped at", "stopped at"], times
    shot(page, "result-time-column", full_page=True)

    # the replay, from the result panel
    page.click("#to-replay")
    page.wait_for_selector("#replay-page .replay-player .pile")
    data = bot.call(lambda c: c.replay(rid))
    seed = data.seed
    assert page.locator("#replay-seed").inner_text() == seed
    page.wait_for_selector("#replay-verify .verify.ok")
    assert "every board" in page.locator("#replay-check").inner_text()
    assert sha256_hex(seed) == page.evaluate("window.solrace.replayPage.snap.commitment")
    total = sum(len(p.moves) for p in data.players)
    assert int(page.locator("#replay-slider").get_attribute("max")) == total
    assert page.locator("#replay-page .replay-player").count() == 2

    def boards_match(step: int, on=page) -> None:
        """Each board shows the server engine's view after that player's moves up to `step`."""
        assert on.evaluate("window.solrace.replayPage.step") == step
        counts = on.evaluate(f"window.solrace.replayPage.countsAt({step})")
        # The boards are drawn by place; each knows its player's index in the replay.
        drawn = on.evaluate("window.solrace.replayPage.boards.map(b => [b.p.pi, b.drawn])")
        assert sorted(pi for pi, _ in drawn) == list(range(len(data.players)))
        for pi, view in drawn:
            p, n = data.players[pi], counts[pi]
            g = rules.replay("fours-up", seed, [mv for mv, _ in p.moves[:n]])
            assert view == g.view_text(), (p.name, n)

    boards_match(0)
    for step in range(1, 6):
        page.click("#replay-next")
        page.wait_for_function(f"window.solrace.replayPage.step === {step}")
        boards_match(step)
    assert re.search(rf"#replay={rid}&step=5$", page.url)
    # A board that has moved marks its last move's source (and destination, unless a draw).
    marked = page.evaluate(
        "window.solrace.replayPage.boards.map(b => [...b.el.querySelectorAll('.pile.last-from, .pile.last-to')].length)"
    )
    assert any(m >= 1 for m in marked), marked
    shot(page, "replay-step-5", full_page=True)
    page.click("#replay-back")
    page.wait_for_function("window.solrace.replayPage.step === 4")
    boards_match(4)
    # jump with the slider, then play to the end
    page.locator("#replay-slider").fill(str(total // 2))
    page.wait_for_function(f"window.solrace.replayPage.step === {total // 2}")
    boards_match(total // 2)
    # jump to a move from a player's list of moves, step with the keyboard
    panel = f'#replay-page .replay-player[data-player="{bot.client.player}"]'
    page.click(f"{panel} .replay-moves summary")
    third = page.locator(f"{panel} .replay-moves-list button").nth(2)
    step = int(third.get_attribute("data-step"))
    third.click()
    page.wait_for_function(f"window.solrace.replayPage.step === {step}")
    boards_match(step)
    assert page.evaluate(f"window.solrace.replayPage.countsAt({step})[1]") == 3
    page.keyboard.press("ArrowRight")
    page.wait_for_function(f"window.solrace.replayPage.step === {step + 1}")
    boards_match(step + 1)
    page.select_option("#replay-speed", "30")
    page.click("#replay-play")
    page.wait_for_function(f"window.solrace.replayPage.step === {total}", timeout=60000)
    boards_match(total)
    assert page.locator("#replay-play").inner_text().endswith("Play")
    shot(page, "replay-end", full_page=True)

    # a shared link opens at its move, in a fresh browser
    other = new_page("friend")
    other.goto(other.url.split("#")[0] + f"#replay={rid}&step=7")
    other.wait_for_function("window.solrace.replayPage.data && window.solrace.replayPage.step === 7")
    other.wait_for_function("window.solrace.replayPage.boards.every(b => b.drawn)")
    boards_match(7, on=other)


def test_replay_of_a_running_race_says_so(new_page, make_bot):
    bot = make_bot("runner")
    snap = bot.call(lambda c: c.create("racing-aces", seats=2, time_limit_s=120))
    page = new_page("early")
    page.goto(page.url.split("#")[0] + f"#replay={snap.race}")
    page.wait_for_selector(".error-panel")
    assert "not over yet" in page.locator(".error-panel h2").inner_text()


def test_illegal_move_message_in_words(new_page):
    """A refused move is told in words, never as a code."""
    page = new_page("wordy")
    create_in_ui(page, "racing-aces", 1)
    page.click("#ready-btn")
    wait_board(page)
    page.evaluate("window.solrace.sendMove('t0>r0')")
    toast = page.locator(".toast.error")
    toast.wait_for()
    text = toast.inner_text()
    assert "not-accepted" not in text and "r0" not in text and "t0" not in text, text
    assert "Not allowed" in text


# ----------------------------------------------------------------------------- daily


@pytest.mark.daily  # a daily attempt on the real clock (tests/conftest.py)
def test_daily_rank_and_record_follow_the_leaderboard(new_page, make_bot):
    """When a rival's attempt ends, your rank line and your record change with the board, no reload."""
    from protocol import messages as m

    page = new_page("dana")
    page.goto(page.url.split("#")[0] + "#daily=racing-aces")
    page.click("#daily-start")
    page.wait_for_url(re.compile(r"#race="))
    wait_board(page)
    page.once("dialog", lambda d: d.accept())
    page.click("#finish-btn")
    page.wait_for_selector("#result-panel")
    page.click("#to-leaderboard")
    page.wait_for_selector("#daily-mine")
    assert "of 1" in page.locator("#daily-mine").inner_text()
    page.locator("#daily-history td", has_text="of 1").first.wait_for()

    bot = make_bot("daily-rival")
    snap = bot.call(lambda c: c.request(m.DailyStart(game="racing-aces")))
    bot.call(lambda c: c.wait_for("start", lambda ev: ev.race == snap.race, timeout=DEADLINE))
    bot.call(lambda c: c.finish(snap.race))
    page.wait_for_selector(f'#leaderboard tr[data-player="{bot.client.player}"]')
    page.wait_for_function("document.querySelector('#daily-mine').textContent.includes('of 2')")
    page.locator("#daily-history td", has_text="of 2").first.wait_for()
    mine = page.locator("#daily-mine .big-rank").inner_text().split()[0]
    row = page.locator("#leaderboard tr.mine td").first.inner_text()
    assert mine == f"#{row}", (mine, row)
    shot(page, "daily-live-rank", full_page=True)


@pytest.mark.daily  # a daily attempt on the real clock (tests/conftest.py)
def test_phone_pages_fit(phone, make_bot):
    """At 360 px the lobby with its race list, a spectated race, the daily page, a how-to-play
    page and a replay all fit the width."""
    a, b = make_bot("alice-with-a-long-name"), make_bot("bob")
    snap = a.call(lambda c: c.create("rouge-et-noir", seats=2, time_limit_s=120))
    a.call(lambda c: c.create("fours-up", seats=3, time_limit_s=120))
    b.call(lambda c: c.join(snap.race))
    a.call(lambda c: c.ready(snap.race))
    b.call(lambda c: c.ready(snap.race))
    for bot in (a, b):
        bot.call(lambda c: c.wait_for("start", lambda ev: ev.race == snap.race, timeout=DEADLINE))
        bot.play(snap.race, delay=0.1, max_moves=15)
    page = phone("viewer")
    page.wait_for_selector(f'#race-list tr[data-race="{snap.race}"]')
    no_sideways_scroll(page, PHONE["width"])
    shot(page, "phone360-lobby", full_page=True)
    page.goto(page.url.split("#")[0] + f"#watch={snap.race}")
    page.wait_for_selector("#boards .spec-board .pile")
    no_sideways_scroll(page, PHONE["width"])
    assert page.locator("#boards").bounding_box()["y"] < page.locator(".side").bounding_box()["y"]
    labels_whole(page, "#boards")
    shot(page, "phone360-watch", full_page=True)
    page.goto(page.url.split("#")[0] + "#daily=double-aces-and-kings")
    page.wait_for_selector("#daily-info")
    no_sideways_scroll(page, PHONE["width"])
    page.goto(page.url.split("#")[0] + "#howto=rouge-et-noir")
    page.wait_for_selector("#howto-board .pile")
    no_sideways_scroll(page, PHONE["width"])
    for bot in (a, b):
        bot.stop_playing()
        bot.call(lambda c: c.finish(snap.race))
    # The replay exists once the race has ended, which a loaded machine may take a moment to do.
    a.call(lambda c: c.wait_for("end", lambda ev: ev.race == snap.race, timeout=DEADLINE))
    page.goto(page.url.split("#")[0] + f"#replay={snap.race}")
    page.wait_for_selector("#replay-page .replay-player .pile")
    no_sideways_scroll(page, PHONE["width"])
    page.locator("#replay-last").tap()
    page.wait_for_function("window.solrace.replayPage.step === window.solrace.replayPage.data.events.length")
    labels_whole(page, "#replay-page")
    shot(page, "phone360-replay", full_page=True)


def test_mark_movable_cards_and_legend(new_page):
    """In a race, an option marks the cards that can move; the legend names the pile groups."""
    page = new_page("marker")
    create_in_ui(page, "double-aces-and-kings", 1)
    page.click("#ready-btn")
    wait_board(page)
    assert not page.evaluate("document.body.classList.contains('mark-movable')")
    page.check("#mark-movable")
    assert page.evaluate("document.body.classList.contains('mark-movable')")
    # About one deal in eight opens with no card to move, only the stock to draw: draw
    # until a card can move (the legal moves come with the resync, then with each ack).
    for _ in range(30):
        page.wait_for_function("window.solrace.app.you.legal.length > 0")
        if page.evaluate("window.solrace.app.you.legal.some((mv) => mv !== 'draw')"):
            break
        n = page.evaluate("window.solrace.app.you.n")
        page.evaluate("window.solrace.app.board.play('draw')")
        page.wait_for_function(f"window.solrace.app.you.n > {n}")
    # The legal moves may reach the board after its first drawing: wait for the marks.
    page.wait_for_function("document.querySelectorAll('#board .card.can').length > 0")
    page.wait_for_function(  # after the shadow's transition
        "getComputedStyle(document.querySelector('#board .card.can')).boxShadow.includes('125, 255, 176')"
    )
    page.click("#legend summary")
    terms = page.locator("#legend dt").all_inner_texts()
    assert any("RESERVES" in t.upper() for t in terms) and any("TABLEAU" in t.upper() for t in terms), terms
    shot(page, "race-marked-and-legend", full_page=True)
    # the option is remembered
    page.reload()
    wait_board(page)
    assert page.locator("#mark-movable").is_checked()
    assert page.evaluate("document.body.classList.contains('mark-movable')")
