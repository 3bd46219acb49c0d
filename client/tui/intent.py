"""What the player chose to do, as the menu (or the command line) hands it to the race app."""

from __future__ import annotations

from dataclasses import dataclass

#: The levels of a bot to race (docs/protocol.md §3 `bot`), as the browser names them.
BOT_LEVELS = (("random", "Easy · random"), ("greedy", "Medium · greedy"), ("search", "Hard · search"))
DEFAULT_BOT_LEVEL = "greedy"


@dataclass
class Intent:
    mode: str  # quick | create | practice | join | resume | daily | bot | rematch | accept
    game: str | None = None
    seats: int = 2
    time_limit_s: int = 600
    private: bool = False
    #: join, resume: the race; rematch: the finished race to play again; accept: the offered
    #: rematch (docs/protocol.md §3 `rematch`)
    race: str | None = None
    invite: str | None = None  # a private race's secret, from its link
    rated: bool = False  # quick or create: a rated race (accounts only, docs/protocol.md §9)
    level: str = DEFAULT_BOT_LEVEL  # bot: the bot's level (BOT_LEVELS)
