"""Where the final boards of the race `solrace watch` shows stand (client/tui/watch_app.py):
asked for when the race ends, from its `replay`, for up to FINAL_WAIT_S, then again with `f`."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

#: How long the final boards are asked for while the server answers `race-not-over`: the `end`
#: reaches a watcher as it is committed, and a loaded server may take seconds more before the
#: finished race reads as finished everywhere (about a second was not enough).
FINAL_WAIT_S = 10.0
#: The pause before asking again, doubled after each refusal up to the second.
FINAL_RETRY_S = (0.2, 1.0)
#: The refusals of the final boards that asking again later may get past (the `f` key).
ASK_AGAIN = frozenset({"disconnected", "reply-lost", "timeout", "internal", "rate-limited"})


class Stage(Enum):
    """Where the final boards of the race watched stand."""

    NOT_ASKED = "not asked"  # the race has not ended yet (as far as the watcher knows)
    ASKING = "asking"
    #: the server has not closed the race yet, and it is asked again (said over the boards)
    WAITING = "waiting"
    SHOWN = "shown"
    MISSING = "missing"  # they did not come: why is said over the boards


@dataclass(frozen=True)
class FinalBoards:
    """The final boards of the race watched: which race they were asked for and where that
    stands, one value, so that shown and missing, or waiting and shown, cannot both hold (four
    flags beside the race could)."""

    #: the race whose end asked for them (None: not yet, or asked again with `f`)
    race: str | None = None
    stage: Stage = Stage.NOT_ASKED
    #: MISSING: "no final boards (why)", said over the boards
    missing: str = ""
    #: MISSING for a reason that asking again may get past (the `f` key)
    again: bool = False

    @property
    def shown(self) -> bool:
        return self.stage is Stage.SHOWN

    def to(self, stage: Stage) -> FinalBoards:
        return FinalBoards(self.race, stage)

    def lacking(self, missing: str, again: bool) -> FinalBoards:
        return FinalBoards(self.race, Stage.MISSING, missing, again)
