"""Shared helpers of the pilot tests."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from waiting import DEADLINE
from waiting import until as loop_until

if TYPE_CHECKING:
    from client.library import Client

#: Server settings for tests that make accounts: one cheap argon2 pass instead of the real cost.
CHEAP_HASH = dict(password_hash_passes=1, password_hash_memory_kib=1024)
#: The password of the accounts these tests make.
PW = "correct horse battery"


def player_id(c: Client) -> str:
    """``c``'s player id: the library's `player` is None until the server answers its hello,
    and a test asks only after that."""
    assert c.player is not None, "no hello answered yet"
    return c.player


async def account_token(url: str, name: str) -> str:
    """A new account's token (a guest claims `name`, through the library)."""
    from client.library import connect

    async with connect(url, name=name) as c:
        return (await c.claim(name, PW)).token


@asynccontextmanager
async def bot_worker(server) -> AsyncIterator[None]:
    """A bot worker (client/bots/service.py) for the in-process `server`, run in this process
    with one slot at a fast pace; entered once the server counts its free slot, since a `bot`
    asked before then is refused (`no-bots`).

    It runs on an event loop of its own, in a thread, as a `solrace bots` runs in a process of
    its own: on the test's loop, a loaded machine's stalls of that loop (the terminal app, the
    server: 4 s seen) held its reports of its free slot back past the server's WORKER_ALIVE_MS,
    and the menu's bot race got `no-bots`."""
    import concurrent.futures
    import threading

    import redis.asyncio as aioredis
    from waiting import until as loop_until

    from client.bots.service import BotService, Limits
    from server.handlers.bots import WORKER_ALIVE_MS
    from server.storage.bots import BotQueue, now_ms

    stop = asyncio.Event()  # set, and waited for, on the worker's loop only
    limits = Limits(max_bots=1, think_ms=20, move_ms=0, wait_s=60)
    service = BotService(server.ws_url, server.settings.redis, limits)
    worker_loop = asyncio.new_event_loop()
    thread = threading.Thread(target=worker_loop.run_forever, name="bot-worker", daemon=True)
    thread.start()
    running: concurrent.futures.Future[None] = asyncio.run_coroutine_threadsafe(
        service.run(stop), worker_loop
    )
    redis = aioredis.from_url(server.settings.redis)
    try:
        queue = BotQueue(redis)

        async def free() -> bool:
            if running.done():
                running.result()  # the worker failed: say how
            return await queue.free_slots(await now_ms(redis), WORKER_ALIVE_MS) > 0

        await loop_until(free, interval=0.05, what="the bot worker's free slot")
        yield
    finally:
        worker_loop.call_soon_threadsafe(stop.set)
        await redis.aclose()
        await asyncio.wait({asyncio.wrap_future(running)}, timeout=DEADLINE)
        try:
            if not running.done():  # seen once in a fresh-clone run: where it is stuck, to find why

                def name(t: asyncio.Task[Any]) -> str:
                    return str(getattr(t.get_coro(), "__qualname__", t.get_name()))

                # Every task of the worker: its run, its bots, its lease keeper (where a lost
                # cancel once left the stop waiting: client/bots/stopping.py).
                stacks = [(name(t), t.get_stack()) for t in asyncio.all_tasks(worker_loop)]
                running.cancel()
                raise AssertionError(f"the bot worker did not stop within {DEADLINE} s: {stacks}")
            running.result()
        finally:
            worker_loop.call_soon_threadsafe(worker_loop.stop)
            await asyncio.to_thread(thread.join, DEADLINE)
            if not thread.is_alive():
                worker_loop.close()


async def until(pilot, cond, timeout: float = DEADLINE, step: float = 0.02, what: str = "condition"):
    """Let the app run until ``cond()`` is true; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = cond()
        if value:
            return value
        if time.monotonic() > deadline:
            status = ""
            try:
                status = str(pilot.app.query_one("#status").render())
            except Exception:  # noqa: BLE001
                pass
            # What the model knew too: the status line alone did not tell a start never sent
            # from one received and not shown (a rematch's start, once, in a clean run).
            model = getattr(pilot.app, "model", None)
            known = ""
            if model is not None:
                seats = {pid: (row.status, row.ready) for pid, row in model.players.items()}
                known = f"; model: race {model.race_id} {model.status} ver {model.ver} gap {model.gap} seats {seats}"
            raise AssertionError(f"timed out waiting for {what} (status line: {status!r}{known})")
        await pilot.pause(step)


async def click_pile(pilot, app, pile: str, index: int | None = None):
    """Click a pile (or one of its cards) of the play app's board through the pilot."""
    from client.tui.widgets import BoardView

    board = app.query_one("#board", BoardView)
    x, y = board.canvas.where(pile, index)
    await pilot.click("#board", offset=(x + 1, y))  # +1: the widget's left padding
    await asyncio.sleep(0)


def rendered(widget) -> str:
    return str(widget.render())


async def click_shown(pilot, selector: str) -> None:
    """Click a widget of the current screen once it is laid out (a screen just pushed
    has no size yet, and a click there would miss)."""
    app = pilot.app

    def shown() -> bool:
        found = app.screen.query(selector)
        return bool(found) and found.first().region.area > 0

    await until(pilot, shown, what=f"{selector} shown")
    assert await pilot.click(selector), f"the click on {selector} reached no widget"


def footer_keys(app) -> dict[str, bool]:
    """The footer's keys as drawn: description -> enabled."""
    from textual.widgets import Footer

    return {
        k.description: not k.has_class("-disabled")
        for k in app.query_one(Footer).children
        if getattr(k, "description", "")
    }


def offline_play(
    game: str = "racing-aces",
    seed: str | None = "0123456789abcdef0123456789abcdef",
    kind: type | None = None,
    **session: Any,
):
    """The play app on an offline session (client/tui/offline.py, or its subclass `kind`)
    that quick-matches `game` at once: (app, session). `session`: LocalSession's settings
    (countdown, rivals' pace…)."""
    from client.tui.offline import LocalSession
    from client.tui.play_app import Intent, PlayApp

    settings = {"name": "ada", "seed": seed, "countdown_ms": 100, "rival_interval": 5, **session}
    local = (kind or LocalSession)(**settings)

    async def connect() -> LocalSession:
        return local

    return PlayApp(connect, Intent("quick", game, 2)), local


async def race_started(pilot) -> None:
    """Until the play app's race runs and its legal moves are in."""
    app = pilot.app
    await until(pilot, lambda: app.model.status == "running" and app.model.legal, what="race start")


async def ready_and_started(pilot) -> None:
    """The play app's race, once created, readied (typed, as a player would) until it runs."""
    app = pilot.app
    await until(pilot, lambda: app.model.race_id is not None, what="race created")
    await pilot.press(*"ready", "enter")
    await race_started(pilot)


async def two_player_race(a: Client, b: Client, game: str) -> str:
    """A race of `game` that `a` creates and `b` joins, both ready, started for both: its id."""
    race = (await a.create(game, seats=2)).race
    await b.join(race)
    await b.ready(race)
    await a.ready(race)
    await a.wait_for("start", timeout=DEADLINE)
    await b.wait_for("start", timeout=DEADLINE)
    return race


@asynccontextmanager
async def watching_a_race(
    make_server: Any, tmp_path: Any, game: str, **options: Any
) -> AsyncIterator[tuple[Any, Client, Client, str, Any, Any]]:
    """(server, a, b, race, app, pilot): a race of `game` that `a` and `b` started
    (`two_player_race`), and `solrace watch` (`options`: the WatchApp's) spectating it at 80x24.
    The spectator boards are delayed past the race's end: only its final boards show cards."""
    from client.library.connection import connect
    from client.tui.net import connector
    from client.tui.watch_app import WatchApp

    server = await make_server(spectator_delay_ms=600_000)
    async with connect(server.ws_url, name="alice") as a, connect(server.ws_url, name="bob") as b:
        race = await two_player_race(a, b, game)
        app = WatchApp(connector(server.ws_url, "watcher", str(tmp_path / "token")), race=race, **options)
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: app.model is not None and app.model.race_id == race, what="spectating")
            yield server, a, b, race, app, pilot


async def never_connects() -> Any:
    """A connector that never connects (the app stays "connecting"): for what the app says alone."""
    await asyncio.Event().wait()


async def status_rows(text: str) -> int:
    """The rows the play app's status line needs to show `text` whole at 80 columns."""
    from client.tui.play_app import PlayApp

    app = PlayApp(never_connects)
    async with app.run_test(size=(80, 30)) as pilot:
        status = app.query_one("#status")
        await until(pilot, lambda: status.region.height > 0, what="the status line drawn")
        app.say(text)
        await pilot.pause()
        return int(
            status.get_content_height(
                status.container_size, status.container_viewport.size, status.content_region.width
            )
        )


async def offline_race_running(session: Any) -> Any:
    """A `LocalSession`'s one race, once it runs (after `quick` and the countdown)."""

    def running() -> Any:
        races = list(session.races.values())
        return races[0] if races and races[0].status == "running" else None

    return await loop_until(running, what="the offline race running")
