"""A move the server refuses is said with the piles named as the board names them: its message
names them the engine's way ("f4 does not take 9♥ when empty"), which the page said "foundation 5"
while Rouge et Noir's board, hints and legend call that pile "sequence foundation 1"
(words.boardPileText). Screenshot: test-artifacts/web/refusal-pile-names.png."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from .conftest import shot
from .test_lobby_practice import practice_started

pytestmark = pytest.mark.timeout(180)


def test_a_refused_move_names_rouge_et_noirs_piles_as_its_board(new_page):
    page = new_page("refused")
    practice_started(page, "rouge-et-noir")
    # One card onto an empty sequence foundation (f4, the group's first pile): never legal, and
    # sent as a stale board would send it (the board itself offers only legal moves).
    page.evaluate("window.solrace.sendMove('t0>f4')")
    note = page.locator(".toast.error", has_text="Not allowed")
    expect(note).to_be_visible()
    text = note.inner_text()
    assert "sequence foundation 1" in text, text
    assert not re.search(r"(?<!sequence )foundation 5|\bf4\b", text), text
    # the board's own name for that pile is the same
    expect(page.locator('#board .pile[data-pile="f4"]')).to_have_attribute(
        "aria-label", re.compile(r"^sequence foundation 1, ")
    )
    shot(page, "refusal-pile-names")
