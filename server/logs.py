"""The log of `solrace serve` and its bot workers: one line per record on stderr.

Text (the default, `--log-format text`):

    2026-12-02T10:00:38.123Z INFO solrace.app: open-files limit 1048576: at most 1048256 connections

UTC, ISO 8601 with milliseconds and a `Z`, then the level, the logger and the
message: one format for every process of a deployment (the bot workers write
to the same stderr), sortable and parseable without knowing the machine's
time zone. A traceback follows its record's line, indented by Python as usual.

JSON (`--log-format json`, or SOLRACE_LOG_FORMAT=json), for log collectors: one
object per line, the same time, level, logger and message, and the traceback
as one string in `exception` when there is one:

    {"time": "2026-12-02T10:00:38.123Z", "level": "INFO", "logger": "solrace.app", "message": "open-files ..."}

Non-ASCII characters are escaped (`\\u00e9`), so that no character of a
message (a player's name, say) can split a record in two for a reader that
cuts lines at Unicode line separators.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time
from types import TracebackType

LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")
FORMATS = ("text", "json")
FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
#: The environment variable of --log-format (read by `solrace serve` and `solrace bots`).
FORMAT_ENV = "SOLRACE_LOG_FORMAT"
#: The environment variable of --log-level (likewise).
LEVEL_ENV = "SOLRACE_LOG_LEVEL"


class UtcFormatter(logging.Formatter):
    def converter(self, secs: float | None) -> time.struct_time:
        return time.gmtime(secs)

    default_time_format = "%Y-%m-%dT%H:%M:%S"
    default_msec_format = "%s.%03dZ"


class JsonFormatter(UtcFormatter):
    """One JSON object per record: time, level, logger, message, and `exception` (the traceback
    text) when the record has one. Newlines inside a message or traceback are escaped by JSON:
    a record is always one line."""

    def format(self, record: logging.LogRecord) -> str:
        out = {
            "time": self.formatTime(record),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info:
            if not record.exc_text:
                record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            out["exception"] = record.exc_text
        if record.stack_info:
            out["stack"] = self.formatStack(record.stack_info)
        return json.dumps(out)


def default_level() -> str:
    """SOLRACE_LOG_LEVEL, for deployments configured by environment alone; else INFO (`solrace
    serve` refuses a bad one)."""
    level = env_level()
    return level if level in LEVELS else "INFO"


def env_level() -> str | None:
    """SOLRACE_LOG_LEVEL as given (upper case), or None when it is not set."""
    raw = os.environ.get(LEVEL_ENV)
    return None if raw is None else raw.strip().upper()


def env_format() -> str | None:
    """SOLRACE_LOG_FORMAT as given (lower case), or None when it is not set."""
    raw = os.environ.get(FORMAT_ENV)
    return None if raw is None else raw.strip().lower()


def env_refusal() -> str | None:
    """Why SOLRACE_LOG_FORMAT or SOLRACE_LOG_LEVEL cannot be used (`solrace serve` and `solrace
    bots` refuse to start on it, not taking a typo for the default), or None."""
    fmt = env_format()
    if fmt is not None and fmt not in FORMATS:
        return f"{FORMAT_ENV}={fmt!r} is not {' or '.join(FORMATS)}"
    level = env_level()
    if level is not None and level not in LEVELS:
        return f"{LEVEL_ENV}={os.environ[LEVEL_ENV]!r} is not {', '.join(LEVELS[:-1])} or {LEVELS[-1]}"
    return None


def default_format() -> str:
    """SOLRACE_LOG_FORMAT when it names a format; else text (`solrace serve` refuses a bad one)."""
    fmt = env_format()
    return fmt if fmt in FORMATS else "text"


def formatter(fmt: str) -> logging.Formatter:
    return JsonFormatter() if fmt == "json" else UtcFormatter(FORMAT)


def setup_logging(level: str, fmt: str | None = None) -> None:
    """Log `level` and above to stderr in `fmt` (text or json; None: SOLRACE_LOG_FORMAT, else text).

    In JSON, an uncaught exception is a record too (logger `solrace`, level CRITICAL), not a bare
    traceback among the objects."""
    fmt = default_format() if fmt is None else fmt
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(formatter(fmt))
    logging.basicConfig(level=getattr(logging, level.upper()), handlers=[handler])
    logging.getLogger("websockets").setLevel(logging.WARNING)  # one line per HTTP request is noise
    if fmt == "json":
        sys.excepthook = _log_uncaught


def _log_uncaught(kind: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
    if issubclass(kind, KeyboardInterrupt):
        sys.__excepthook__(kind, exc, tb)
        return
    logging.getLogger("solrace").critical("uncaught exception", exc_info=(kind, exc, tb))


def error_record(message: str, logger: str = "solrace") -> str:
    """One JSON line for `message` at ERROR: what a command prints instead of its plain one-line
    error (a refused setting, a start that cannot succeed) when the log is JSON."""
    record = logging.LogRecord(logger, logging.ERROR, __file__, 0, message, None, None)
    return JsonFormatter().format(record)


def add_log_arguments(parser: argparse.ArgumentParser, scope: str = "") -> None:
    """`--log-level` and `--log-format`, defaulted from their variables; `scope` ends their
    help (e.g. ", for this process and its bot workers")."""
    parser.add_argument(
        "--log-level",
        type=str.upper,
        choices=LEVELS,
        default=default_level(),
        help=f"logging level{scope} (default INFO, or {LEVEL_ENV})",
    )
    parser.add_argument(
        "--log-format",
        type=str.lower,
        choices=FORMATS,
        default=default_format(),
        help=f"text (one line per record) or json (one JSON object per line){scope} "
        f"(default text, or {FORMAT_ENV})",
    )
