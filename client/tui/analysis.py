"""`analysis` in the terminal app: where each player of a finished race lost the win.

Online the app asks the server (the `analysis` request, docs/protocol.md §3). The server's
solver computes it once per race and keeps it; while its solver is busy it answers
`solver-busy` with `retry_ms`, and the app asks again for up to ANALYSIS_PATIENCE_S, as the
browser's result view does, saying how long it has waited. Offline the race's replay is
analysed here, in a worker thread, with the server's budget per solver run (ANALYSIS_NODES):
the answer the server would give.

The words are the server's (`text`: "won until move 37, t2>f5; a winning line from there:
…"), whose moves are written as the command line takes them.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

from protocol.rules.facts import game_name
from protocol.solver import ANALYSIS_NODES

from .errors import ServerError
from .model import RaceModel
from .offline import LocalSession
from .session import Session

#: How long the app keeps asking while the server's solver is busy (the browser waits as long):
#: a race of 8 is about a minute of one solver worker (estimated from docs/benchmarks.md
#: "Analysis": its figures are per player).
ANALYSIS_PATIENCE_S = 300.0
#: Below this the wait is not worth a number (the browser's pending line does the same).
QUIET_S = 3.0
#: The wait between two asks when the server's `solver-busy` names none.
RETRY_S = 2.0


def offline_players(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """The analysis of an offline race's replay, in the server's shape (name and text)."""
    from client.cli.analyze import analyze_document

    return [
        {"name": who, "text": a.text(), "verdict": a.verdict}
        for who, a in analyze_document(doc, nodes=ANALYSIS_NODES)
    ]


async def fetch_analysis(
    session: Session, race: str, asking: Callable[[str], object] | None = None, invite: str | None = None
) -> list[dict[str, Any]]:
    """Every player's analysis of the finished `race` (one map each: `name`, `text`, …);
    `invite`: a private race's, for a watcher who holds no seat in it. Raises ServerError: the server's refusal, or `solver-busy` once ANALYSIS_PATIENCE_S
    have passed."""
    if isinstance(session, LocalSession):
        doc = await session.request("replay", race=race)
        if asking is not None:
            asking("analysis: the solver is at work (seconds per player)…")
        return await asyncio.to_thread(offline_players, doc)
    asked = time.monotonic()
    give_up = asked + ANALYSIS_PATIENCE_S
    said = ""
    while True:
        try:
            reply = await session.request("analysis", race=race, **({"invite": invite} if invite else {}))
        except ServerError as e:
            retry_ms = e.extra.get("retry_ms")
            wait = retry_ms / 1000 if isinstance(retry_ms, int) and retry_ms > 0 else RETRY_S
            now = time.monotonic()
            if e.code != "solver-busy" or now + wait > give_up:
                raise
            if asking is not None:
                text = busy_text(now - asked)
                if text != said:
                    asking(text)
                    said = text
            await asyncio.sleep(wait)
            continue
        players = reply.get("players")
        return [p for p in players if isinstance(p, dict)] if isinstance(players, list) else []


def busy_text(waited_s: float) -> str:
    """What the line says while the server's solver is at work, `waited_s` after the first ask."""
    if waited_s < QUIET_S:
        return "analysis: the server's solver is at work (seconds per player)…"
    return f"analysis: the server's solver is at work, {int(waited_s)} s so far (seconds per player)…"


async def show_analysis(
    app: Any,
    session: Session,
    race: str,
    game: str | None,
    say: Callable[..., object],
    invite: str | None = None,
    shown: str = "",
) -> None:
    """Asks for `race`'s analysis, saying so on `say`'s line, then shows it over `app`'s
    screen (`shown` said then), or says in words why there is none (`say(text, error=True)`)."""
    say("analysis: asking the solver…")
    try:
        players = await fetch_analysis(session, race, asking=say, invite=invite)
    except ServerError as e:
        say(refusal_text(e), error=True)
        return
    say(shown)
    app.push_screen(AnalysisScreen(game, players))


def refusal_text(e: ServerError) -> str:
    """A refused analysis as a sentence (client/tui/errors.py's words, or the server's)."""
    if e.code == "unknown-type":
        return "analysis: this server does not analyse races"
    return f"analysis: {e.describe()}"


def not_over_text(m: RaceModel) -> str | None:
    """Why there is no analysis yet, or None when the race is over."""
    if m.status == "finished":
        return None
    if not m.race_id:
        return "analysis: no race on screen"
    return "analysis: once the race is over (the solver knows the whole deal)"


class AnalysisScreen(ModalScreen[None]):
    """Each player's analysis, until Esc, Enter or Back."""

    DEFAULT_CSS = """
    AnalysisScreen { align: center middle; }
    #analysis { width: 90%; max-width: 100; height: 90%; border: round $accent; padding: 1 2; }
    #analysis-players { height: 1fr; margin: 1 0; }
    .analysis-player { width: 100%; margin: 0 0 1 0; }
    """
    BINDINGS = [Binding("escape", "back", "back")]

    def __init__(self, game: str | None, players: list[dict[str, Any]]):
        super().__init__()
        self.game = game
        self.players = players

    def compose(self) -> ComposeResult:
        title = "Where was the win lost?" + (f" — {game_name(self.game)}" if self.game else "")
        with Vertical(id="analysis"):
            yield Label(f"[b]{title}[/b]", id="analysis-title")
            with VerticalScroll(id="analysis-players"):
                for p in self.players:
                    who = str(p.get("name") or p.get("player") or "?")
                    yield Static(f"{who}: {p.get('text', '')}", classes="analysis-player", markup=False)
            yield Button("Back (Esc)", id="analysis-back", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#analysis-back", Button).focus()  # Enter closes too

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(None)

    def action_back(self) -> None:
        self.dismiss(None)
