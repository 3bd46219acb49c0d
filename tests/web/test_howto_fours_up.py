"""The Fours Up how-to (#howto=fours-up) says what docs/rules.md §5.5 allows and a player would not
guess: a foundation's top card, the base 4 included, may move back to the tableau (or to another
foundation). Its try-it position has the case: the 4♦ alone on its foundation, a 5♦ on the
tableau, and the browser's rules engine lets it go there."""

from __future__ import annotations


def test_fours_up_howto_says_a_foundation_card_may_move_back(new_page):
    page = new_page("learner")
    page.goto(page.url.split("#")[0] + "#howto=fours-up")
    page.wait_for_selector('#howto[data-game="fours-up"] #howto-board .pile')
    moves = page.locator("#howto section.panel", has_text="Moves").locator("li").all_inner_texts()
    said = [m for m in moves if m.startswith("A foundation's top card")]
    assert said == [
        "A foundation's top card, even the 4 it started on, may move back to the tableau "
        "or to another foundation that takes it."
    ], moves
    # what it says holds: the base 4♦ of f1 may go onto the 5♦ of t2
    assert page.evaluate("window.solrace.howtoPage.example.legalMoves().includes('f1>t2')")
