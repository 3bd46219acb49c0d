"""Small helpers shared by the Redis-backed modules (``store``, ``accounts_store``, ``pool``)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

#: Milliseconds since the epoch; injectable so that tests control time.
Clock = Callable[[], int]
DAY_MS = 86_400_000


def system_clock() -> int:
    return time.time_ns() // 1_000_000


def text(value: Any) -> str:
    """A Redis reply as ``str``, whether the client decodes responses or returns bytes."""
    return value.decode() if isinstance(value, bytes) else str(value)


def compact_json(obj: Any) -> str:
    """JSON without spaces, as stored in Redis."""
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)
