"""The URL of a `solrace serve`'s private redis-server, from its log line

    private redis-server on redis://127.0.0.1:PORT/0 (password in DATA/redis.pass, data in DATA)

with the password read from that file (the log never shows it)."""

from __future__ import annotations

import re
from pathlib import Path

LINE = re.compile(r"private redis-server on redis://([\d.]+:\d+/\d+) \(password in (\S+), data in ")


def private_redis_url(log_text: str) -> str | None:
    """The URL with its password, or None if the line is not (yet) in `log_text`."""
    found = LINE.search(log_text)
    if found is None:
        return None
    password = Path(found.group(2)).read_text().strip()
    return f"redis://:{password}@{found.group(1)}"
