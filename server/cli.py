"""`solrace serve`: one server process (uvloop) on one port.

    solrace serve [--host 127.0.0.1] [--port 8765] [--redis URL] [--data ./data] [--LIMIT VALUE ...]

Every setting of server/config.py is a flag and a SOLRACE_* variable. Prints
the WebSocket and HTTP URLs once listening (tests read the first line to
learn the port when started with --port 0). SIGTERM/SIGINT: graceful stop.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import logging
import signal
import sys

from .config import Settings


def add_arguments(parser: argparse.ArgumentParser) -> None:
    Settings.add_arguments(parser)
    parser.add_argument("--log-level", default="INFO", help="logging level (default INFO)")


async def serve(settings: Settings) -> None:
    from .app import App
    from .botworkers import BotWorkers

    app = App(settings)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        try:
            loop.add_signal_handler(sig, stop.set)
        except NotImplementedError:  # pragma: no cover - Windows
            pass
    workers: BotWorkers | None = None
    try:
        await app.start()
        tune_gc()
        print(f"solrace listening on {app.ws_url}  (web client and metrics: {app.http_url})", flush=True)
        if settings.bot_workers > 0 and app.store is not None:
            workers = BotWorkers(settings, app.ws_url, app.store.url)
            workers.start()
        await stop.wait()
        logging.getLogger("solrace").info("shutting down")
    finally:
        app.stop_accepting()  # at once: the bot workers may take seconds to stop
        # Side by side: each may wait for a stalled Redis, and the grace period is for both.
        await app.stop(None if workers is None else asyncio.ensure_future(workers.stop()))


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


def run(args: argparse.Namespace) -> int:
    logging.basicConfig(
        level=getattr(logging, str(args.log_level).upper(), logging.INFO),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    logging.getLogger("websockets").setLevel(logging.WARNING)  # one line per HTTP request is noise
    try:
        settings = Settings.from_env(args=args)
    except ValueError as exc:  # a bad value in a flag or a SOLRACE_* variable
        print(f"solrace serve: {exc}", file=sys.stderr)
        return 2
    try:
        import uvloop
    except ImportError:  # pragma: no cover
        asyncio.run(serve(settings))
    else:
        uvloop.run(serve(settings))
    return 0
