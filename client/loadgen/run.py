"""The three bench modes, each against the race server and the echo baseline in one run.

`moves` (default)  capacity (closed loop) and latency (open loop) of moves
`idle`             memory per idle player (after hello) vs per echo connection
`fanout`           time until the last of S spectators has a progress update

Every mode returns a plain dict (the JSON report); `report.py` prints it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from .fanout import fanout_mode
from .idle import idle_mode
from .measure import Log
from .moves import moves_mode

__all__ = ["MODES", "fanout_mode", "idle_mode", "moves_mode"]

#: Mode name -> the coroutine that runs it with the command's arguments.
MODES: dict[str, Callable[[Any, Log], Awaitable[dict[str, Any]]]] = {
    "moves": moves_mode,
    "idle": idle_mode,
    "fanout": fanout_mode,
}
