"""redis-server's own log, read from its stdout into ours (logger `solrace.redis-server`).

The private redis-server (embedded_redis.py) writes its log to its stdout, which
one thread per child (`RedisLog`) reads and passes, line by line, to the logger
`solrace.redis-server` (docs/operations.md §10), so that a deployment has one
log stream, rotated by whatever collects our stderr, and no file in the data
folder that grows for ever. Redis' levels map to ours (`.` and `-` DEBUG, `*`
INFO, `#` WARNING), except that:
- the lines of a start and of a stop we asked for are DEBUG: our own lines say
  what matters of them (`private redis-server on ...`, the one-line reason a
  start failed, a damaged AOF end dropped), and Redis' advice about the host
  (`WARNING Memory overcommit must be enabled! ...`) is logged once per
  `EmbeddedRedis`, at INFO (advice, not an incident: docs/operations.md §13),
  when its owner calls `report_advice` after a start that succeeded;
- Redis' routine `#` lines (`Server initialized`, `User requested shutdown`, ...)
  are INFO, and a WARNING said again within REPEAT_QUIET_S (numbers aside) is
  DEBUG, so that a redis-server restarted in a loop (a full disk) does not
  repeat its complaint at every restart.
Nothing that reads the pipe waits for the event loop, and the thread never
stops reading until the child has closed it: a redis-server never blocks on its log.
"""

from __future__ import annotations

import contextlib
import logging
import re
import threading
from collections import deque
from typing import IO, Protocol

#: redis-server's own lines (module doc).
server_log = logging.getLogger("solrace.redis-server")


#: What redis-server logs when it loaded an AOF only by dropping its damaged tail: an operator
#: must hear it (the moves in that tail are gone), in one line that says what it means.
AOF_TRUNCATED = ("Truncating the AOF", "!!! Warning: short read while loading the AOF")

#: A redis-server log line: `PID:ROLE DD Mon YYYY HH:MM:SS.mmm MARK message` (Redis 6 and 7),
#: and a line its signal handler writes: `PID:signal-handler (TIME) message`.
_LINE = re.compile(r"\d+:[A-Z] \d{1,2} \w{3} \d{4} [\d:.]+ ([.*#-]) (.*)")
_SIGNAL_LINE = re.compile(r"\d+:signal-handler \(\d+\) (.*)")
#: Redis' level marks; a line without one (a crash report, a config error on stderr) is a WARNING.
MARK_LEVELS = {".": logging.DEBUG, "-": logging.DEBUG, "*": logging.INFO, "#": logging.WARNING}
#: Lines Redis logs at its warning level (`#`) that report no problem: INFO.
ROUTINE = (
    "oO0OoO0OoO0Oo Redis is starting",
    "Redis version=",
    "Configuration loaded",
    "Server initialized",
    "User requested shutdown",
    "Redis is now ready to exit",
)
#: A WARNING of a running redis-server said again within this many seconds (numbers aside) is
#: DEBUG: one line per incident, not one per restart of a crash loop.
REPEAT_QUIET_S = 60.0
#: Lines of a start kept, for the reason it failed (the last one) and the AOF repairs.
START_LINES = 500
#: How long a start waits for the log thread to have read the lines before the ready one.
LOG_CATCH_UP_S = 2.0


def parse_line(line: str) -> tuple[str, str]:
    """(level mark, message) of one line of redis-server's log; ('', line) if it has no mark."""
    found = _LINE.fullmatch(line)
    if found is not None:
        return found.group(1), found.group(2)
    found = _SIGNAL_LINE.fullmatch(line)
    if found is not None:
        return "#", found.group(1)
    return "", line


class LevelOwner(Protocol):
    """What decides a running redis-server's line level (`EmbeddedRedis.level`)."""

    def level(self, mark: str, message: str) -> int: ...


class RedisLog:
    """The stdout (and stderr) of one redis-server child, read to its end by one thread.

    `phase` says how its lines are logged (module doc): "start" until the start succeeded or
    failed (DEBUG; kept in `start_lines`), "run" (Redis' level, through `EmbeddedRedis.level`),
    "stop" once we asked it to stop (DEBUG).
    """

    def __init__(self, owner: LevelOwner, stream: IO[bytes]) -> None:
        self.owner = owner
        self.stream = stream
        self.phase = "start"
        self.start_lines: deque[tuple[str, str]] = deque(maxlen=START_LINES)
        self.last = ""  # the last message read: what an outage's log line quotes
        self.ready = threading.Event()  # the line that says it accepts connections was read
        self.thread = threading.Thread(target=self._read, name="redis-server log", daemon=True)
        self.thread.start()

    def _read(self) -> None:
        try:
            for raw in self.stream:
                try:
                    self._line(raw.decode(errors="replace").rstrip())
                except Exception:  # pragma: no cover - keep reading whatever happens
                    pass
        except (OSError, ValueError):  # pragma: no cover - the pipe closed under us
            pass
        finally:
            with contextlib.suppress(OSError):
                self.stream.close()

    def _line(self, line: str) -> None:
        if not line.strip():
            return
        mark, message = parse_line(line)
        self.last = message
        phase = self.phase
        if phase == "start":
            self.start_lines.append((mark, message))
            server_log.debug("%s", message)
            if "eady to accept connections" in message:
                self.ready.set()
        elif phase == "run":
            server_log.log(self.owner.level(mark, message), "%s", message)
        else:
            server_log.debug("%s", message)

    def wait_end(self, timeout: float) -> None:
        """Wait until every line the child wrote was read (it exited and closed its end)."""
        self.thread.join(timeout)
