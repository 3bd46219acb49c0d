"""`solrace serve`: one server process (uvloop) on one port.

    solrace serve [--host 127.0.0.1] [--port 8765] [--redis URL] [--data ./data] [--LIMIT VALUE ...]

Every setting of server/config/settings.py is a flag and a SOLRACE_* variable.
Prints the WebSocket and HTTP URLs once listening (tests read the first line to
learn the port when started with --port 0; a --host of several addresses gets a
second line naming each), and logs one line with the version, where it listens,
its Redis and every setting that differs from its default. SIGTERM, SIGINT and
SIGHUP: graceful stop (docs/operations.md §8), also during the start, which
they end (the private redis-server may take minutes to load its data).
A start that cannot succeed (Redis unreachable, the private redis-server
refusing its data) is one line on stderr and exit status 1.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import gc
import logging
import os
import signal
import socket
import sys
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any

from protocol.version import software_version

from .config import Settings
from .logs import (
    FORMAT_ENV,
    LEVEL_ENV,
    add_log_arguments,
    env_refusal,
    error_record,
    setup_logging,
)
from .storage.resp import PASSWORD_FLAG_WARNING, redact_url, url_has_password

if TYPE_CHECKING:
    from .app import App


def add_arguments(parser: argparse.ArgumentParser) -> None:
    # Some eighty flags: argparse's usage line, printed above any bad flag's message, would be
    # sixty lines; --help lists them all.
    parser.usage = "%(prog)s [options]  (every option: %(prog)s --help)"
    Settings.add_arguments(parser)
    add_log_arguments(parser, ", for this process and its bot workers")


#: Settings of the private redis-server alone, that an operator may believe apply to any Redis
#: (its durability, its memory): with --redis they change nothing, which the start says. Not
#: --data: the image sets SOLRACE_DATA for its single-container use, and with --redis nothing
#: is written there (no promise is broken).
PRIVATE_REDIS_SETTINGS = ("redis_fsync", "redis_maxmemory_mb")


def ignored_with_external_redis(settings: Settings) -> list[str]:
    """The flags of the private redis-server given (changed from their defaults) along with
    --redis, where they change nothing."""
    if not settings.redis:
        return []
    return [
        "--" + f.name.replace("_", "-")
        for f in dataclasses.fields(settings)
        if f.name in PRIVATE_REDIS_SETTINGS and getattr(settings, f.name) != f.default
    ]


def secrets_on_the_command_line(args: argparse.Namespace | None) -> list[str]:
    """A warning for each secret given as a flag, where every local user can list it (`ps`):
    a Redis URL with a password, the daily secret. Their variables keep them out of sight."""
    if args is None:
        return []
    out = []
    if args.redis and url_has_password(args.redis):
        out.append(PASSWORD_FLAG_WARNING)
    if args.daily_secret:
        out.append(
            "--daily-secret gives a secret on the command line, which every local user can list: "
            "give it in SOLRACE_DAILY_SECRET instead"
        )
    return out


#: Settings whose value is a secret: the startup line says only that they are set.
SECRET_SETTINGS = ("daily_secret",)


def changed_settings(settings: Settings) -> str:
    """`name=value` of every setting that differs from its default, secrets and passwords hidden."""
    out = []
    for f in dataclasses.fields(settings):
        value = getattr(settings, f.name)
        if value == f.default:
            continue
        if f.name in SECRET_SETTINGS:
            value = "(set)"
        elif f.name == "redis":
            value = redact_url(value)
        out.append(f"{f.name}={value}")
    # The log's own two (flags of serve, not settings: handed on to the bot workers as variables).
    level, fmt = os.environ.get(LEVEL_ENV, "INFO").upper(), os.environ.get(FORMAT_ENV, "text").lower()
    out += [f"log_level={level}"] if level != "INFO" else []
    out += [f"log_format={fmt}"] if fmt != "text" else []
    return " ".join(out) or "none"


#: At a stop, how long the bot workers may take to end before the server closes its
#: connections (theirs included) all the same; part of the stop's grace period.
BOT_WORKERS_FIRST_S = 1.0


async def serve(settings: Settings, flags_given: argparse.Namespace | None = None) -> None:
    from .app import App
    from .botworkers import BotWorkers

    app = App(settings)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    # SIGHUP too: a closed terminal or a supervisor's hang-up stops the server as cleanly as a
    # SIGTERM (there is no configuration to reload: settings are read once, at start).
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        try:
            loop.add_signal_handler(sig, stop.set)
        except NotImplementedError:  # pragma: no cover - Windows
            pass
    log = logging.getLogger("solrace")
    for warning in secrets_on_the_command_line(flags_given):
        log.warning("%s", warning)
    ignored = ignored_with_external_redis(settings)
    if ignored:
        log.warning(
            "settings of the private redis-server, ignored with --redis (the external Redis' own "
            "configuration decides: docs/operations.md §6, §13): %s",
            ", ".join(ignored),
        )
    workers: BotWorkers | None = None
    try:
        if await start_unless_stopped(app, stop):
            tune_gc()
            print("\n".join(listening_lines(app)), flush=True)
            if settings.bot_workers > 0 and app.store is not None:
                workers = BotWorkers(settings, app.ws_url, app.store.url)
                workers.start()
            addresses = app.addresses
            log.info(
                "solrace %s listening on %s, Redis %s; settings changed from their defaults: %s",
                software_version(),
                app.ws_url if len(addresses) == 1 else f"{app.ws_url} ({', '.join(addresses)})",
                "private (above)" if not settings.redis else redact_url(settings.redis),
                changed_settings(settings),
            )
            await stop.wait()
            log.info("shutting down")
    finally:
        app.stop_accepting()  # at once: the bot workers may take seconds to stop
        # Side by side: each may wait for a stalled Redis, and the grace period is for both. The
        # workers get a head start: their bots close their own connections, instead of being
        # closed by the server and logging their attempts to reconnect to it.
        workers_stop = None if workers is None else asyncio.ensure_future(workers.stop())
        if workers_stop is not None:
            await asyncio.wait({workers_stop}, timeout=BOT_WORKERS_FIRST_S)
        await app.stop(workers_stop)
    log.info("stopped")


def listening_lines(app: App) -> list[str]:
    """What stdout says once the server listens: its URLs (tests read the port from the first
    line), and, when --host names several addresses (a name such as localhost, "" for every
    interface), a second line with each of them, all on the first line's port."""
    lines = [f"solrace listening on {app.ws_url}  (web client and metrics: {app.http_url})"]
    addresses = app.addresses
    if len(addresses) > 1:
        lines.append(f"solrace listening on {len(addresses)} addresses: {', '.join(addresses)}")
    return lines


async def start_unless_stopped(app: App, stop: asyncio.Event) -> bool:
    """Start `app`; a stop asked for meanwhile ends the start (`App.end_start`: the private
    redis-server's first start may wait minutes for it to load its data). False: it was ended,
    which the log says in one line."""
    from .app import StartEnded

    starting = asyncio.ensure_future(app.start())
    stopping = asyncio.ensure_future(stop.wait())
    try:
        await asyncio.wait({starting, stopping}, return_when=asyncio.FIRST_COMPLETED)
        if not starting.done():
            await app.end_start()
        await starting
    except StartEnded as exc:
        logging.getLogger("solrace").warning("%s", exc)
        return False
    finally:
        stopping.cancel()
    return True


GC_GEN0 = 10_000  # allocations between young collections (CPython's default: 700)


def tune_gc() -> None:
    """Less cyclic-GC work on the hot path (it was ~7 % of the CPU under load).

    Everything built at startup (modules, the rules engine's tables, settings)
    lives for ever: `gc.freeze()` moves it out of every later collection. A
    move allocates a few dozen short-lived containers, nearly all freed by
    reference counting, so young collections every 700 allocations mostly
    find nothing: they now run every GC_GEN0 allocations (the older
    generations keep their default ratios, so cycles are still collected).
    """
    gc.collect()
    gc.freeze()
    _g0, g1, g2 = gc.get_threshold()
    gc.set_threshold(GC_GEN0, g1, g2)


#: The warnings filter (PYTHONWARNINGS syntax) that silences multiprocessing's resource tracker.
RESOURCE_TRACKER_QUIET = "ignore:resource_tracker:UserWarning"


def quiet_resource_tracker() -> None:
    """Silence the resource tracker's warnings: after a kill -9 of this process it removes the
    solver pools' semaphores, as it should, and says so in plain text on our stderr, a line
    that breaks a JSON log and asks nothing of anyone. Its own process reads the filter from
    the environment (it inherits no other), so it is set there, before the tracker starts."""
    current = os.environ.get("PYTHONWARNINGS", "")
    if RESOURCE_TRACKER_QUIET not in current.split(","):
        os.environ["PYTHONWARNINGS"] = ",".join(filter(None, [current, RESOURCE_TRACKER_QUIET]))


def run(args: argparse.Namespace) -> int:
    fmt = args.log_format
    refused = env_refusal()  # SOLRACE_LOG_LEVEL=WARN, say: not INFO without a word
    if refused is not None:
        return _refuse(refused, fmt, 2)
    # The bot workers (`solrace bots`, started with this environment) log in the same format,
    # at the same level.
    os.environ[FORMAT_ENV] = fmt
    os.environ[LEVEL_ENV] = args.log_level
    quiet_resource_tracker()
    setup_logging(args.log_level, fmt)
    try:
        settings = Settings.from_env(args=args)
    except ValueError as exc:  # a bad value in a flag or a SOLRACE_* variable
        return _refuse(str(exc), fmt, 2)
    # Before the private redis-server starts: a host that names no address is a bad flag.
    try:
        socket.getaddrinfo(settings.host, None, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        return _refuse(
            f"--host {settings.host!r} is neither an address nor a known host name ({exc.strerror})", fmt, 2
        )
    # An OSError (a port in use, Redis out of reach) is said by the command line in one line
    # with its hint, as a JSON record when the log is JSON (client/cli/__init__.py).
    _run_loop(serve(settings, args))
    return 0


def _run_loop(main: Coroutine[Any, Any, None]) -> None:
    try:
        import uvloop
    except ImportError:  # pragma: no cover
        asyncio.run(main)
    else:
        uvloop.run(main)


def _refuse(message: str, fmt: str, status: int) -> int:
    """A start refused (a bad setting: 2) or failed (Redis out of reach, a damaged AOF: 1), in
    one line on stderr: `solrace serve: why`, as a JSON record when the log is JSON."""
    line = f"solrace serve: {message}"
    print(error_record(line) if fmt == "json" else line, file=sys.stderr)
    return status
