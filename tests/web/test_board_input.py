"""The race board's mouse double-click and keyboard play, and the pages under a strict style policy.

A double-click with a mouse sends a card home (Chromium sends no dblclick for it: the first click
redraws the board and its element is gone, so the board pairs the clicks itself); a click that
plays a move is never the first half of a double-click. The keyboard alone plays: Tab to a pile,
arrows within a fanned pile, Enter to select and to move, "h" to send home, Escape to clear; the
focus stays on the board through its redraws, with a visible ring. The how-to-play boards give known
positions (howto.js); a solo race checks the same on the board the server redraws.

No page sets a `style` attribute: under the server's Content-Security-Policy, which has no
'unsafe-inline' in style-src, nothing is refused. Screenshots: test-artifacts/web/input-*.png.
"""

from __future__ import annotations

import pytest
from must import must
from waiting import DEADLINE

from .conftest import Bot, shot
from .test_browser import create_in_ui, wait_board, you

pytestmark = pytest.mark.timeout(180)

PLAYED = "window.solrace.howtoPage.played.length"


def open_howto(page, game: str) -> None:
    page.goto(page.url.split("#")[0] + f"#howto={game}")
    page.wait_for_selector(f'#howto[data-game="{game}"] #howto-board .pile')


def top_card(page, root: str, pile: str) -> str | None:
    """The code of a pile's top card as drawn (the card with an index; the one under it has none)."""
    return page.evaluate(
        """([root, pile]) => { const cards = document.querySelectorAll(`${root} .pile[data-pile="${pile}"] .card[data-idx]`);
             return cards.length ? cards[cards.length - 1].dataset.card || null : null; }""",
        [root, pile],
    )


def focused(page) -> dict | None:
    """Where the focus is: the board, pile and card (null for a pile itself), else None."""
    return page.evaluate(
        """() => { const a = document.activeElement; const p = a && a.closest('.pile');
             if (!p) return null;
             return { board: p.closest('.board').id, pile: p.dataset.pile, card: a.classList.contains('card') ? a.dataset.card : null,
                      outline: getComputedStyle(a).outlineStyle }; }"""
    )


def tab_to(page, root: str, pile: str) -> dict:
    """Press Tab (or Shift+Tab, towards it) until the focus is in `pile` of the board `root`."""
    for _ in range(80):
        way = page.evaluate(
            """([root, pile]) => { const t = document.querySelector(`${root} .pile[data-pile="${pile}"]`);
                 const a = document.activeElement;
                 if (t.contains(a)) return 0;
                 if (!a || a === document.body) return 1;
                 return a.compareDocumentPosition(t) & Node.DOCUMENT_POSITION_FOLLOWING ? 1 : -1; }""",
            [root, pile],
        )
        if way == 0:
            now = focused(page)
            assert now is not None  # in the pile
            return now
        page.keyboard.press("Tab" if way > 0 else "Shift+Tab")
    raise AssertionError(f"Tab never reached {root} {pile}; the focus is on {focused(page)}")


def home_moves(page) -> list[str]:
    """The race's moves of one card from outside the foundations onto one."""
    return [m for m in you(page)["legal"] if ">f" in m and not m.startswith("f") and ":" not in m]


def solo_race_with_a_home_move(page) -> list[str]:
    """A solo Racing Aces race, drawn from the stock until a card can go home (nearly always at once:
    a reserve or tableau card is an Ace, a Six, a Seven or a King). Its home moves."""
    create_in_ui(page, "racing-aces", 1)
    page.click("#ready-btn")
    wait_board(page)
    for _ in range(120):
        moves = home_moves(page)
        if moves:
            return moves
        n0 = you(page)["n"]
        assert "draw" in you(page)["legal"], f"no card can go home and no draw: {you(page)}"
        page.click('#board .pile[data-pile="s"]')
        page.wait_for_function(f"window.solrace.app.you.n > {n0}")
    raise AssertionError("no card could go home through the whole stock")


def foundation_tops(page, code: str) -> int:
    """How many of the race board's foundations show `code` on top."""
    return page.locator(f'#board .pile[data-pile^="f"] .card[data-idx][data-card="{code}"]').count()


# ----------------------------------------------------------------------------- mouse double-click


def test_a_mouse_double_click_sends_a_card_home(new_page):
    page = new_page("clicker")
    open_howto(page, "racing-aces")
    root = "#howto-board"
    assert (top_card(page, root, "r0"), top_card(page, root, "f0")) == ("4d", "3c")  # r0>f0
    page.locator(f'{root} .pile[data-pile="r0"] .card[data-card="4d"]').dblclick()
    page.wait_for_function(f"{PLAYED} === 1")
    assert top_card(page, root, "f0") == "4d"
    assert top_card(page, root, "r0") == "9c"
    assert page.locator(f"{root} .selected").count() == 0
    shot(page, "input-dblclick-howto")


def test_a_mouse_double_click_sends_a_card_home_in_a_race(new_page):
    page = new_page("racer")
    move = solo_race_with_a_home_move(page)[0]
    src = move.split(">")[0]
    length = page.evaluate(f"window.solrace.app.board.view.piles[{src!r}].length")
    code = page.evaluate(f"window.solrace.app.board.view.piles[{src!r}][{length - 1}]")
    on_top = foundation_tops(page, code)
    n0, home0 = you(page)["n"], you(page)["home"]
    page.locator(f'#board .pile[data-pile="{src}"] .card[data-idx="{length - 1}"]').dblclick()
    page.wait_for_function(f"window.solrace.app.you.n === {n0 + 1}")
    # a card home (from a tableau spot refilled by the stock, the source is no shorter)
    assert you(page)["home"] == home0 + 1
    assert foundation_tops(page, code) == on_top + 1, f"{code} is not shown home"
    shot(page, "input-dblclick-race")


def test_a_double_click_whose_first_click_plays_a_move_plays_only_that_move(new_page):
    """Rouge et Noir: with the 8♥ selected, a double-click on the 9♣ puts the 8♥ there; its second
    click, on the same card, is a click (the 9♣ is not selected), not the double-click of a run
    9♣ 8♥ whose one move (onto the 10♦) would go at once."""
    page = new_page("doubler")
    open_howto(page, "rouge-et-noir")
    root = "#howto-board"
    page.locator(f'{root} .pile[data-pile="t0"] .card[data-card="8h"]').click()
    page.wait_for_selector(f'{root} .pile[data-pile="t1"].target')
    page.locator(f'{root} .pile[data-pile="t1"] .card[data-card="9c"]').dblclick(position={"x": 10, "y": 5})
    page.wait_for_function(f"{PLAYED} >= 1")
    piles = page.evaluate("window.solrace.howtoPage.board.view.piles")
    assert page.evaluate(PLAYED) == 1, piles
    assert len(piles["t1"]) == 3 and len(piles["t4"]) == 1, piles


# ----------------------------------------------------------------------------- keyboard


def test_the_keyboard_alone_plays_the_how_to_play_board(new_page):
    """Racing Aces: Tab to the 4♦, Enter, Shift+Tab to its foundation, Enter; "h" sends the waste's
    5♠ home; Escape clears a selection. The focus stays where it was through every redraw."""
    page = new_page("keys")
    open_howto(page, "racing-aces")
    root = "#howto-board"

    f: dict | None = tab_to(page, root, "r0")
    assert f == {"board": "howto-board", "pile": "r0", "card": "4d", "outline": "solid"}, f  # a visible ring
    page.keyboard.press("Enter")
    page.wait_for_selector(f'{root} .pile[data-pile="f0"].target')
    assert page.locator(f'{root} .pile[data-pile="r0"] .card.selected').count() == 1
    shot(page, "input-keys-selected")
    assert must(focused(page))["card"] == "4d"  # the redraw that showed the selection kept the focus
    tab_to(page, root, "f0")
    page.keyboard.press("Enter")
    page.wait_for_function(f"{PLAYED} === 1")
    assert top_card(page, root, "f0") == "4d"
    # the focus stays on the destination, now on its new top card, ring shown
    assert focused(page) == {"board": "howto-board", "pile": "f0", "card": "4d", "outline": "solid"}

    tab_to(page, root, "w")
    page.keyboard.press("h")
    page.wait_for_function(f"{PLAYED} === 2")
    assert top_card(page, root, "f0") == "5s"
    f = focused(page)  # the emptied waste itself
    assert f is not None and (f["pile"], f["card"]) == ("w", None), f

    tab_to(page, root, "t0")
    page.keyboard.press("Enter")
    page.wait_for_selector(f'{root} .pile[data-pile="f12"].target')
    page.keyboard.press("Escape")
    page.wait_for_selector(f"{root} .selected", state="detached")
    assert page.evaluate(PLAYED) == 2
    page.keyboard.press("h")  # the J♥ on the Queen; the stock refills the spot
    page.wait_for_function(f"{PLAYED} === 3")
    assert top_card(page, root, "f12") == "Jh"
    f = focused(page)
    assert f is not None and f["pile"] == "t0" and f["card"] not in (None, "Jh"), f
    shot(page, "input-keys-played")


def test_the_arrows_take_a_run_from_inside_a_pile(new_page):
    """Fours Up: "h" sends the 7♣ home; ArrowUp goes from the 8♠ to the 9♥ above it, and Enter then
    Enter on the 10♣ moves the run 9♥ 8♠ there. First, a click on a focused card hides its ring."""
    page = new_page("arrows")
    open_howto(page, "fours-up")
    root = "#howto-board"
    # a click on the card that has the focus while a move is in flight (the click does nothing and
    # nothing is redrawn, so no focus moves) still hides the ring
    assert tab_to(page, root, "t1")["outline"] == "solid"
    page.evaluate("window.solrace.howtoPage.board.busy = true")
    page.locator(f'{root} .pile[data-pile="t1"] .card[data-idx]').last.click()
    f = focused(page)
    assert f is not None and (f["pile"], f["outline"]) == ("t1", "none"), f
    page.evaluate("window.solrace.howtoPage.board.busy = false")

    assert tab_to(page, root, "t0")["card"] == "7c"
    page.keyboard.press("h")
    page.wait_for_function(f"{PLAYED} === 1")
    assert top_card(page, root, "f0") == "7c"
    assert must(focused(page))["card"] == "8s"  # the source's new top card
    page.keyboard.press("ArrowUp")
    assert must(focused(page))["card"] == "9h"
    page.keyboard.press("Enter")
    page.wait_for_selector(f'{root} .pile[data-pile="t1"].target')
    assert page.locator(f'{root} .pile[data-pile="t0"] .card.selected').count() == 2
    assert must(focused(page))["card"] == "9h"  # not back on the top card
    tab_to(page, root, "t1")
    page.keyboard.press("Enter")
    page.wait_for_function(f"{PLAYED} === 2")
    piles = page.evaluate("window.solrace.howtoPage.board.view.piles")
    assert piles["t1"] == ["Tc", "9h", "8s"] and piles["t0"] == [], piles
    f = focused(page)
    assert f is not None and (f["pile"], f["card"], f["outline"]) == ("t1", "8s", "solid"), f


def test_the_keyboard_alone_plays_a_race(new_page):
    """In a race the server redraws the board after each move: the focus stays on it. Enter selects
    and moves a card home; "h" sends the next one home; a mouse click shows no focus ring."""
    page = new_page("typist")
    move = solo_race_with_a_home_move(page)[0]
    src, dst = move.split(">")
    n0 = you(page)["n"]
    page.evaluate("document.activeElement.blur()")  # (the stock clicked to draw kept it) keys only from here
    assert focused(page) is None
    assert tab_to(page, "#board", src)["outline"] == "solid"
    page.keyboard.press("Enter")
    page.wait_for_selector(f'#board .pile[data-pile="{dst}"].target')
    tab_to(page, "#board", dst)
    page.keyboard.press("Enter")
    page.wait_for_function(f"window.solrace.app.you.n === {n0 + 1}")
    page.wait_for_function(
        f"""document.activeElement.closest('#board .pile[data-pile="{dst}"]') !== null"""
    )  # through the server's redraw
    f = must(focused(page))
    assert f["board"] == "board" and f["outline"] == "solid", f
    shot(page, "input-keys-race")

    moves = home_moves(page)
    while not moves:  # draw with the race page's own key until a card can go home
        n = you(page)["n"]
        assert "draw" in you(page)["legal"], f"no card can go home and no draw: {you(page)}"
        page.keyboard.press("d")
        page.wait_for_function(f"window.solrace.app.you.n > {n}")
        moves = home_moves(page)
    src = moves[0].split(">")[0]
    n = you(page)["n"]
    tab_to(page, "#board", src)
    page.keyboard.press("h")
    page.wait_for_function(f"window.solrace.app.you.n === {n + 1}")
    page.wait_for_function("document.activeElement.closest('#board') !== null")

    # a mouse click focuses the card too (keys go on from there), without the ring
    code = page.evaluate("window.solrace.app.board.view.piles.r0.at(-1)")
    if code:
        page.locator('#board .pile[data-pile="r0"] .card[data-idx]').last.click()
        f = must(focused(page))
        assert f["pile"] == "r0" and f["outline"] == "none", f


def test_space_presses_what_has_the_focus_and_draws_only_from_nowhere(new_page):
    """Space on a button presses it (it drew a card, a move that cannot be taken back); on a card
    it is Enter; with nothing focused it is still the race page's draw. A click with no pointer
    behind it (a screen reader pressing a card) selects as Enter does."""
    page = new_page("spacer")
    solo_race_with_a_home_move(page)
    n0 = you(page)["n"]
    asked: list[str] = []

    def answer(dialog):
        asked.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", answer)
    page.focus("#finish-btn")
    page.keyboard.press(" ")
    page.wait_for_function("document.activeElement && document.activeElement.id === 'finish-btn'")
    assert asked and "Stop playing" in asked[0], asked  # the button was pressed (and dismissed) ...
    assert you(page)["n"] == n0  # ... and nothing drawn
    src = home_moves(page)[0].split(">")[0]
    tab_to(page, "#board", src)
    page.keyboard.press(" ")
    page.wait_for_selector(f'#board .pile[data-pile="{src}"] .selected')
    assert you(page)["n"] == n0
    page.keyboard.press("Escape")
    page.wait_for_function("document.querySelectorAll('#board .selected').length === 0")
    page.evaluate(
        f"""[...document.querySelectorAll('#board .pile[data-pile="{src}"] .card[data-idx]')].at(-1).click()"""
    )
    page.wait_for_selector(f'#board .pile[data-pile="{src}"] .selected')
    page.keyboard.press("Escape")
    page.evaluate("document.activeElement.blur()")
    page.keyboard.press(" ")  # nothing has the focus: the page's draw
    page.wait_for_function(f"window.solrace.app.you.n === {n0 + 1}")
    # a mouse click leaves the focus on a card (no ring): Space there is still the draw
    page.locator('#board .pile[data-pile="s"]').click()
    page.wait_for_function(f"window.solrace.app.you.n === {n0 + 2}")
    page.locator(f'#board .pile[data-pile="{src}"] .card[data-idx]').last.click()
    assert page.evaluate("document.activeElement.closest('#board .pile') !== null")
    if "draw" in you(page)["legal"]:
        page.keyboard.press(" ")
        page.wait_for_function(f"window.solrace.app.you.n === {n0 + 3}")


def test_what_the_eye_gets_from_motion_is_said_to_a_screen_reader(new_page):
    """The countdown and the start, a card that shakes for a key that does nothing, and the
    result, each said once in the polite live region #say."""
    page = new_page("listener")
    page.evaluate(
        """() => { window.__said = []; new MutationObserver(() => window.__said.push(
             document.querySelector('#say').textContent.trim())).observe(
             document.querySelector('#say'), {childList: true, characterData: true, subtree: true}); }"""
    )
    moves = solo_race_with_a_home_move(page)
    said = page.evaluate("window.__said")
    assert any("starts in" in x for x in said) and "Go" in said, said
    sources = {m.split(">")[0] for m in moves}
    legal = you(page)["legal"]
    idle = next(
        p
        for p in page.evaluate("Object.keys(window.solrace.app.board.view.piles)")
        if p[0] in "rt"
        and p not in sources
        and page.evaluate(f"window.solrace.app.board.view.piles[{p!r}].length")
        and not any(m.startswith(p + ">f") for m in legal)
    )
    tab_to(page, "#board", idle)
    page.keyboard.press("h")  # this card cannot go home
    page.wait_for_function("window.__said.some((x) => x.startsWith('no move for'))")
    page.on("dialog", lambda d: d.accept())
    page.click("#finish-btn")
    page.wait_for_selector("#result-panel h2")
    heading = page.inner_text("#result-panel h2")
    page.wait_for_function("(h) => window.__said.includes(h)", arg=heading)
    assert page.evaluate("(h) => window.__said.filter((x) => x === h).length", heading) == 1


def test_a_new_page_takes_the_focus_and_names_itself_and_arrows_go_pile_to_pile(new_page):
    """A screen reader starts a new page at its content, under its own title; a pile's name says
    how many cards lie face down in it; ArrowLeft/ArrowRight step between piles."""
    page = new_page("stepper")
    assert page.title().endswith("solrace")
    create_in_ui(page, "rouge-et-noir", 1)
    assert page.title() == "Race — solrace"
    assert page.evaluate("document.activeElement.id") == "main"
    page.click("#ready-btn")
    wait_board(page)
    first = tab_to(page, "#board", "t1")
    label = page.evaluate("document.activeElement.getAttribute('aria-label')")
    assert ", tableau" in label and "face down" in label, label
    stock = page.get_attribute('#board .pile[data-pile="s"]', "aria-label")
    assert stock.startswith("stock") and "face down" not in stock, stock  # its back is the stock
    page.keyboard.press("ArrowRight")
    assert must(focused(page))["pile"] != first["pile"]
    page.keyboard.press("ArrowLeft")
    assert must(focused(page))["pile"] == first["pile"]
    assert you(page)["n"] == 0  # stepping plays nothing


# ----------------------------------------------------------------------------- style policy


def test_no_page_needs_inline_styles(browser, web_server):
    """Each page under the server's policy, which has no 'unsafe-inline' in style-src: nothing
    refused. (An inline style set on purpose is refused, so the policy is the one in force.)"""
    bot = Bot(web_server.ws, "striped")
    rid = bot.call(lambda c: c.create("racing-aces", seats=1, time_limit_s=300)).race
    bot.call(lambda c: c.ready(rid))
    bot.play(rid, delay=0.5, max_moves=6)

    ctx = browser.new_context(viewport={"width": 1280, "height": 860})
    refused: list[str] = []
    try:
        page = ctx.new_page()
        page.set_default_timeout(DEADLINE * 1000)

        def note_refusal(message):
            if "Content Security Policy" in message.text:
                refused.append(message.text)

        page.on("console", note_refusal)
        page.on("pageerror", lambda e: refused.append(f"page error: {e}"))
        page.add_init_script("localStorage.setItem('solrace.name', 'strict')")
        first = page.goto(web_server.http + "/")
        policy = first.headers["content-security-policy"]
        assert "style-src 'self';" in policy and "unsafe-inline" not in policy, policy
        page.wait_for_selector(".net.online")
        page.wait_for_selector(".fan-deco .deco")  # the lobby tiles' fanned cards (--i)

        with page.expect_console_message(lambda m: "Content Security Policy" in m.text) as probe:
            page.evaluate(
                "document.body.insertAdjacentHTML('beforeend', '<i id=probe style=\"color: red\"></i>')"
            )
        assert "inline style" in probe.value.text, probe.value.text
        assert page.evaluate("getComputedStyle(document.querySelector('#probe')).color") != "rgb(255, 0, 0)"
        refused.clear()
        page.evaluate("document.querySelector('#probe').remove()")

        page.click('a[data-nav="watch"]')
        page.wait_for_selector(f'#race-list tr[data-race="{rid}"] .mini-bar i')  # a live race's bar
        page.click('a[data-nav="howto"]')
        page.wait_for_selector("#howto-board .pile")
        page.click('a[data-nav="daily"]')
        page.wait_for_selector("#main h1")
        page.click('a[data-nav="lobby"]')
        rid = create_in_ui(page, "racing-aces", 1)
        page.click("#ready-btn")
        wait_board(page)
        page.wait_for_selector("#players .bar i", state="attached")  # the progress bars (width: 0 % yet)
        width = page.evaluate("document.querySelector('#players .bar i').style.width")
        assert width.endswith("%"), width
        shot(page, "input-strict-policy")
        page.once("dialog", lambda d: d.accept())
        page.click("#finish-btn")
        page.wait_for_selector("#result-panel")
        page.goto(web_server.http + f"/#replay={rid}")
        page.wait_for_selector("#replay-page .replay-player .pile")
        page.wait_for_selector("#replay-verify .verify.ok")
        assert refused == [], refused
    finally:
        ctx.close()
        bot.close()
