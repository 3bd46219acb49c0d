"""What the player chose to do, as the menu (or the command line) hands it to the race app."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Intent:
    mode: str  # quick | create | join | resume | daily
    game: str | None = None
    seats: int = 2
    time_limit_s: int = 600
    private: bool = False
    race: str | None = None
    invite: str | None = None  # a private race's secret, from its link
    rated: bool = False  # quick or create: a rated race (accounts only, docs/protocol.md §9)
