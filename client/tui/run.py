"""Running a full-screen app so that SIGTERM and SIGHUP end it as Ctrl+Q does.

Textual puts the terminal in raw mode, on the alternate screen, with mouse reporting,
and gives it back when the app exits. A signal that kills the process skips that and
leaves the shell unusable (no echo, no line editing) until `reset`. Here those two
signals ask the app to exit instead; once it has given the terminal back, the process
exits with the signal's conventional status (128 + its number), so a caller's loop of
apps (`solrace arena`) stops too.
"""

from __future__ import annotations

import asyncio
import signal
from typing import Any

from textual.app import App

SIGNALS = (signal.SIGTERM, signal.SIGHUP)


def run_app(app: App[Any]) -> Any:
    """`app.run()`, ended cleanly by SIGTERM or SIGHUP (then SystemExit(128 + signal))."""
    got: list[int] = []

    def stop(sig: int) -> None:
        got.append(sig)
        app.exit()

    loop = asyncio.new_event_loop()
    try:
        for sig in SIGNALS:
            loop.add_signal_handler(sig, stop, sig)
        result = app.run(loop=loop)
    finally:
        for sig in SIGNALS:
            loop.remove_signal_handler(sig)
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()
    if got:
        raise SystemExit(128 + got[0])
    return result
