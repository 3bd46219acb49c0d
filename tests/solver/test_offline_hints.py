"""Hints in the terminal app: computed offline from the player's view only,
asked of the server online (which refuses them where they are forbidden)."""

from __future__ import annotations

from typing import Any

from tui.helpers import offline_play, race_started, rendered, until

from client.tui.errors import ServerError
from client.tui.hints import ask_hint, offline_hint
from client.tui.model import RaceModel
from client.tui.offline import LocalSession
from protocol import rules
from protocol.solver import best_move

SEED = "0123456789abcdef0123456789abcdef"


def _running(view: str) -> RaceModel:
    m = RaceModel()
    m.status, m.my_status, m.view, m.race_id = "running", "playing", view, "r1"
    return m


async def test_offline_hint_is_the_player_side_search_on_the_view() -> None:
    view = rules.deal("racing-aces", SEED).view_text()
    session = LocalSession(seed=SEED)
    text = await ask_hint(session, _running(view))
    assert text == f"hint: {best_move(view)}"
    # computed locally: nothing was asked of the (offline) server
    assert not [r for r in session.sent if r["t"] == "hint"]


def test_offline_hint_needs_only_the_view() -> None:
    """Two games that look the same (same view, different stock order) get the
    same hint: the hint cannot leak a hidden card."""
    g = rules.deal("fours-up", SEED)
    other = g.copy()
    stock = other.piles[other.game.stock_idx]
    stock.reverse()
    assert other.view_text() == g.view_text() and other.to_text() != g.to_text()
    assert offline_hint(g.view_text()) == offline_hint(other.view_text())


class _Online:
    """A stand-in for a server session: records requests, answers `hint`."""

    player, name = "p1", "ada"

    def __init__(self, reply: dict[str, Any] | None = None, error: ServerError | None = None) -> None:
        self.sent: list[tuple[str, dict[str, Any]]] = []
        self.reply, self.error = reply, error

    async def request(self, t: str, **fields: Any) -> dict[str, Any]:
        self.sent.append((t, fields))
        if self.error is not None:
            raise self.error
        return self.reply or {}


async def test_online_hint_is_the_servers_and_a_refusal_is_shown() -> None:
    view = rules.deal("racing-aces", SEED).view_text()
    ok = _Online({"t": "hint", "move": "draw"})
    assert await ask_hint(ok, _running(view)) == "hint: draw"  # type: ignore[arg-type]
    assert ok.sent == [("hint", {"race": "r1"})]
    refused = _Online(error=ServerError("hints-forbidden", "hints are only for casual solo races"))
    text = await ask_hint(refused, _running(view))  # type: ignore[arg-type]
    assert text.startswith("hint: hints are for a casual race") and "hints-forbidden" not in text, text


async def test_no_hint_outside_a_running_game() -> None:
    session = _Online({"move": "draw"})
    m = _running("x")
    m.status = "finished"
    assert "only while your game is running" in await ask_hint(session, m)  # type: ignore[arg-type]
    assert session.sent == []


async def test_hint_command_in_the_offline_app() -> None:
    app, _ = offline_play(seed=SEED)
    async with app.run_test(size=(110, 45)) as pilot:
        await race_started(pilot)
        await pilot.press(*"hint", "enter")
        await until(pilot, lambda: "hint: " in rendered(app.query_one("#status")), what="hint shown")
        shown = rendered(app.query_one("#status")).split("hint: ", 1)[1].strip()
        assert shown == best_move(app.model.view or "")
        assert shown in app.model.legal
