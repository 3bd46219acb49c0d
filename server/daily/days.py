"""UTC days, and the clock every daily computation reads.

A daily challenge belongs to one UTC calendar day, named ``YYYY-MM-DD``. It
*opens* at that day's midnight UTC and *closes* at the next midnight; the
interval is half-open, so the instant ``closes`` already belongs to the next
day. Times are integers, milliseconds since the Unix epoch (as on the wire).

Nothing here reads the system clock: callers pass ``now`` from a ``Clock``
(a callable returning milliseconds), so tests can cross midnight at will.
"""

from __future__ import annotations

import datetime as _dt
import re
import time
from collections.abc import Callable

#: A clock: returns the current time in milliseconds since the epoch.
Clock = Callable[[], int]

DAY_MS = 86_400_000
_EPOCH = _dt.date(1970, 1, 1)
_DATE_RE = re.compile(r"\d{4}-\d{2}-\d{2}")


def system_clock() -> int:
    """The default clock: wall time in ms (the server may pass Redis TIME instead)."""
    return time.time_ns() // 1_000_000


def day_number(date: str) -> int:
    """Days since 1970-01-01 of a ``YYYY-MM-DD`` date; raises ValueError if malformed."""
    return (parse_date(date) - _EPOCH).days


def parse_date(date: str) -> _dt.date:
    """A strict ``YYYY-MM-DD`` (exactly that spelling, a real calendar date)."""
    if not isinstance(date, str) or not _DATE_RE.fullmatch(date):
        raise ValueError(f"not a YYYY-MM-DD date: {date!r}")
    return _dt.date.fromisoformat(date)


def date_of_day(day: int) -> str:
    """The ``YYYY-MM-DD`` name of day number ``day``."""
    return (_EPOCH + _dt.timedelta(days=day)).isoformat()


def day_of(ms: int) -> str:
    """The UTC date that contains the instant ``ms``."""
    return date_of_day(ms // DAY_MS)


def opens_at(date: str) -> int:
    """Midnight UTC at the start of ``date``, in ms."""
    return day_number(date) * DAY_MS


def closes_at(date: str) -> int:
    """Midnight UTC at the end of ``date`` (= the next day's opening), in ms."""
    return opens_at(date) + DAY_MS


def is_open(date: str, now: int) -> bool:
    """True while ``now`` lies in ``[opens_at(date), closes_at(date))``."""
    return opens_at(date) <= now < closes_at(date)


def is_closed(date: str, now: int) -> bool:
    """True once the day is over (its seed may be revealed)."""
    return now >= closes_at(date)
