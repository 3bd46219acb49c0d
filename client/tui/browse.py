"""The frame of the two browsing apps (`solrace watch`, `solrace arena`): a list, then one item.

Both connect in a worker, pump the session's events into `server_event`, open the
item named on the command line or load the list, refresh on a timer, keep the
list table's cursor across redraws, and turn a refused request into the status
line. Each app says what its list, its item and its events are.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Sequence
from typing import Any, ParamSpec, TypeVar

from rich.text import Text
from textual import work
from textual.app import App
from textual.css.query import NoMatches
from textual.widgets import DataTable, Static
from textual.worker import WorkerState

from .errors import ServerError, connect_error_text, connection_lost_text
from .session import Session
from .tables import fixed_widths

#: What a browsing app says first when no server answered: the ways on, before the reason
#: (one row at 80 columns: the line has three).
UNREACHABLE_WAYS = "No server answered: start one (solrace serve) or give --url ws://HOST:PORT/ws"


P = ParamSpec("P")
T = TypeVar("T")


def unless_gone(work: Callable[P, Awaitable[T]]) -> Callable[P, Coroutine[Any, Any, T | None]]:
    """A worker or timer of a browsing app, or of a screen, that draws after it waited (a reply,
    an event, a tick of `BrowseApp.tick_every`): if the app shut down meanwhile, its widgets are
    gone (a screen's while the screen is still attached), and it draws nothing and ends (None).
    A worker's NoMatches fails the whole app: the watch app's final boards, loaded as a test
    ended on a loaded machine, did so, and the daily screen's dailies."""

    @functools.wraps(work)
    async def run(*args: P.args, **kwargs: P.kwargs) -> T | None:
        try:
            return await work(*args, **kwargs)
        except NoMatches:
            return None

    return run


class BrowseApp(App[int]):
    #: the worker groups of the refreshes the timer starts (`refresh_due`)
    REFRESH_GROUPS: tuple[str, ...] = ("list",)

    def __init__(self, connect: Callable[[], Awaitable[Session]], refresh_s: float) -> None:
        super().__init__()
        self.connect = connect
        self.refresh_s = refresh_s
        self.session: Session | None = None

    # -- what each app says ------------------------------------------------------

    async def open_initial(self) -> bool:
        """Open the item named on the command line; False when none was named."""
        return False

    async def load_list(self) -> None:
        raise NotImplementedError

    def server_event(self, ev: dict[str, Any]) -> None:
        """One server event (a reply to a request never comes here)."""

    def action_refresh(self) -> None:
        raise NotImplementedError

    # -- shared -------------------------------------------------------------------

    async def on_unmount(self) -> None:
        if self.session is not None:
            await self.session.close()

    def say(self, text: str, error: bool = False) -> None:
        self.query_one("#status", Static).update(Text(text, style="red" if error else ""))

    def now(self) -> int:
        return self.session.server_now() if self.session else 0

    async def request(self, t: str, what: str = "", **fields: Any) -> dict[str, Any] | None:
        """The reply, or None after saying why the server refused (prefixed with `what`)."""
        if self.session is None:
            return None
        try:
            return await self.session.request(t, **fields)
        except ServerError as e:
            self.say(f"{what}: {e.describe()}" if what else e.describe(), error=True)
            return None

    def fill_table(
        self,
        selector: str,
        rows: Iterable[tuple[str | None, tuple[str, ...]]],
        title: str,
        widths: Sequence[int] | None = None,
    ) -> None:
        """Redraw the list table (rows of key and cells), keeping the cursor's place;
        ``widths``: the columns' fixed widths, else each grows to its widest cell."""
        tables = self.query(selector)
        if not tables:  # the app is closing: a list request may answer after the widgets are gone
            return
        table = tables.first(DataTable)
        cursor = table.cursor_row
        if widths is not None:
            fixed_widths(table, widths)
        table.clear()
        for key, cells in rows:
            # A cell wrapped on more lines (tables.wrap_rows) makes its row as tall.
            table.add_row(*cells, key=key, height=None if any("\n" in c for c in cells) else 1)
        if table.row_count:
            table.move_cursor(row=min(cursor, table.row_count - 1))
        self.query_one("#list-title", Static).update(title)

    @work(exclusive=True, group="main")
    @unless_gone
    async def main(self) -> None:
        try:
            self.session = await self.connect()
        except Exception as e:  # noqa: BLE001
            from client.library import Unreachable  # here: the offline demo needs no network

            why = connect_error_text(e)  # words; the exception itself goes to the log
            # The list's title said "connecting…" for ever, and the line only the error.
            self.query_one("#list-title", Static).update("not connected: r tries again, ctrl+q quits")
            ways = UNREACHABLE_WAYS + "\n" if isinstance(e, Unreachable) else ""
            self.say(f"{ways}cannot connect: {why}", error=True)
            return
        for line in getattr(self.session, "notices", ()):  # e.g. a new guest stood in
            self.notify(line, severity="warning", timeout=15)
        self.pump()
        if not await self.open_initial():
            await self.load_list()
        self.set_interval(self.refresh_s, self.refresh_due)

    def connect_again(self) -> bool:
        """`r` while connecting failed: connect again (a server started meanwhile: the app had to
        be quit and started again). False when connected, or still trying: `r` refreshes."""
        if self.session is not None or any(w.group == "main" and w.is_running for w in self.workers):
            return False
        self.query_one("#list-title", Static).update("connecting…")
        self.say("")
        self.main()
        return True

    def tick(self) -> None:
        """What the app redraws each `tick_every` (its clocks)."""

    def tick_every(self, seconds: float) -> None:
        """`tick` every `seconds`. A tick that lands while the app shuts down finds its widgets
        gone: it draws nothing (NoMatches ended the watch app so, in a loaded test run), as a
        worker does: the timer awaits it, guarded by `unless_gone`."""

        @unless_gone
        async def ticked() -> None:
            self.tick()

        self.set_interval(seconds, ticked)

    def refresh_due(self) -> None:
        """The timer's refresh, skipped while the last one still waits for its reply: the
        refreshes are exclusive workers, and one started on every tick cancelled the one before,
        so over a link slower than the timer (or on a loaded machine) no refresh ever ended."""
        waiting = (WorkerState.PENDING, WorkerState.RUNNING)
        if not any(w.group in self.REFRESH_GROUPS and w.state in waiting for w in self.workers):
            self.action_refresh()

    @work(group="pump")
    @unless_gone
    async def pump(self) -> None:
        assert self.session is not None
        while True:
            ev = await self.session.events.get()
            # The connection's state on the status line: the bars and standings froze without
            # a word while the client reconnected.
            if ev.get("t") == "disconnected":
                self.say(connection_lost_text(ev), error=True)
            elif ev.get("t") == "reconnected":
                self.say("reconnected")
            self.server_event(ev)
