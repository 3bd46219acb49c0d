"""The log of `solrace serve` and its bot workers: one line per record on stderr.

    2026-12-02T10:00:38.123Z INFO solrace.app: open-files limit 1048576: at most 1048064 connections

UTC, ISO 8601 with milliseconds and a `Z`, then the level, the logger and the
message: one format for every process of a deployment (the bot workers write
to the same stderr), sortable and parseable without knowing the machine's
time zone. A traceback follows its record's line, indented by Python as usual.
"""

from __future__ import annotations

import logging
import os
import sys
import time

LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")
FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class UtcFormatter(logging.Formatter):
    def converter(self, secs: float | None) -> time.struct_time:
        return time.gmtime(secs)

    default_time_format = "%Y-%m-%dT%H:%M:%S"
    default_msec_format = "%s.%03dZ"


def default_level() -> str:
    """SOLRACE_LOG_LEVEL, for deployments configured by environment alone; else INFO."""
    level = os.environ.get("SOLRACE_LOG_LEVEL", "INFO").upper()
    return level if level in LEVELS else "INFO"


def setup_logging(level: str) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(UtcFormatter(FORMAT))
    logging.basicConfig(level=getattr(logging, level.upper()), handlers=[handler])
    logging.getLogger("websockets").setLevel(logging.WARNING)  # one line per HTTP request is noise
