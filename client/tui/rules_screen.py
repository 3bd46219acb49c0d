"""How a game is played, over the menu (its "How to play" button): the menu's own blurb has
no rows on an 80x24 terminal, and a new player there read only the games' names. The words
are the race screen's `rules` (the browser's game page opens with them); Esc, Enter or the
button closes it, back to the menu."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label

from protocol.rules.facts import game_name

from .race_commands import for_game, rules_text

#: How moves are made, under the rules (the race screen's help says it too).
MOVES = (
    "In a race: click a card, then a pile (double-click sends a card home; the stock draws), "
    "or type moves such as w>f3, t2:3>t5 or d (draw); there 'rules' says these rules again."
)


def how_to_play_text(game: str) -> str:
    """The screen's words for ``game``: its rules, then how moves are made."""
    return rules_text(game).removeprefix(f"{game_name(game)}: ") + "\n\n" + for_game(MOVES, game)


class RulesScreen(ModalScreen[None]):
    """The rules of one game, until Esc, Enter or Back."""

    DEFAULT_CSS = """
    RulesScreen { align: center middle; }
    #rules { width: 72; height: auto; max-height: 100%; border: round $accent; padding: 1 2; }
    #rules-text { width: 100%; margin: 1 0; }
    """
    BINDINGS = [Binding("escape", "back", "back")]

    def __init__(self, game: str):
        super().__init__()
        self.game = game

    def compose(self) -> ComposeResult:
        with Vertical(id="rules"):
            yield Label(f"[b]How to play {game_name(self.game)}[/b]", id="rules-title")
            yield Label(how_to_play_text(self.game), id="rules-text", markup=False)
            yield Button("Back (Esc)", id="rules-back", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#rules-back", Button).focus()  # Enter closes too

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(None)

    def action_back(self) -> None:
        self.dismiss(None)
