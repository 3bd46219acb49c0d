"""Real-browser tests of the web client: headless Chromium driven by playwright.

Chromium is Debian's `chromium` package (/usr/bin/chromium), launched through
playwright's `executable_path` (playwright's own browser download is never
used). `make test` installs both. Each test gets a fresh browser context (its
own localStorage: a new player); one `solrace serve` with a private Redis is
shared by the module. Screenshots go to test-artifacts/web/.

Bots are asyncio clients from client/library driven by a client/bots strategy,
each on its own event loop in a thread, so the synchronous playwright API can
run in the test thread.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import hashlib
import os
import re
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from waiting import DEADLINE

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "web"
CHROMIUM = os.environ.get("SOLRACE_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

# A missing browser fails the run rather than skipping it: `make test` installs both.
from playwright import sync_api  # noqa: E402

if not Path(CHROMIUM).exists():  # pragma: no cover - make test installs it
    pytest.fail(f"{CHROMIUM} is missing (make test installs Debian's chromium)", pytrace=False)

# expect() waits 5 s by default, apart from the pages' own timeout (DEADLINE, below): a loaded
# machine (load average 30 on two cores, two suites at once) can take longer to redraw.
sync_api.expect.set_options(timeout=DEADLINE * 1000)

# The pages run under the server's Content-Security-Policy (server/net/http.py: no 'unsafe-eval'),
# and playwright's wait_for_function polls a string expression with eval() from the page: refused
# after the first try. Wrapped in a function, the expression is compiled once, with the rest of
# the wrapper, during playwright's own evaluation (which CSP does not restrict), and polled as a
# plain call. (A string that evaluates to a function is still called with `arg`.)
_wait_for_function = sync_api.Page.wait_for_function


def _wait_for_function_under_csp(self, expression: str, *args, **kwargs):
    wrapped = f'(arg) => {{ const v = (\n{expression}\n); return typeof v === "function" ? v(arg) : v; }}'
    return _wait_for_function(self, wrapped, *args, **kwargs)


setattr(sync_api.Page, "wait_for_function", _wait_for_function_under_csp)  # noqa: B010  # a method replaced


#: The line `solrace serve` prints once it listens (server/cli.py), with the port it bound.
LISTENING = re.compile(rb"^solrace listening on ws://127\.0\.0\.1:(\d+)/ws", re.MULTILINE)


class Server:
    """`solrace serve` in a subprocess. Without `port` it binds a port of its own choosing
    (`--port 0`) and the test reads it from the line it prints: a port probed free here and
    passed on could be taken meanwhile (its private redis-server once got it, and the page's
    HTTP request reached Redis). `port`: that one (a restart at the same address)."""

    def __init__(self, tmp: Path, port: int = 0, **flags: object) -> None:
        self.log_path = tmp / "server.log"
        cmd = [
            sys.executable,
            "-m",
            "client.cli",
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--data",
            str(tmp / "data"),
        ]
        for k, v in flags.items():
            cmd += [f"--{k.replace('_', '-')}", str(v)]
        self.log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(cmd, cwd=ROOT, stdout=self.log, stderr=subprocess.STDOUT)
        # (a machine loaded by other work took over 30 s to bring one up, its log still empty)
        deadline = time.monotonic() + 2 * DEADLINE
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"solrace serve exited: {self.log_path.read_text()[-3000:]}")
            listening = LISTENING.search(self.log_path.read_bytes())
            if listening:
                self.port = int(listening.group(1))
                break
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"solrace serve did not come up: {self.log_path.read_text()[-3000:]}")
            time.sleep(0.1)
        self.http = f"http://127.0.0.1:{self.port}"
        self.ws = f"ws://127.0.0.1:{self.port}/ws"
        with urllib.request.urlopen(self.http + "/", timeout=DEADLINE) as r:
            assert r.status == 200, r.status

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


@pytest.fixture(scope="module")
def web_server(tmp_path_factory):
    srv = Server(
        tmp_path_factory.mktemp("web-server"),
        countdown_ms=1200,
        spectator_delay_ms=1500,
        spectator_flush_ms=200,
        # The analysis test accepts "winnable" or "unknown": a smaller budget keeps its solve
        # to about a second of CPU, which a doubly loaded machine still gives in time.
        analysis_nodes=4000,
        # Shorter than that solve: the first request is answered solver-busy and the page
        # asks again until the analysis is cached (the retry is part of the test).
        analysis_wait_s=0.05,
    )
    yield srv
    srv.stop()


# One browser per module, not per session: playwright's sync API keeps an asyncio loop
# running in the thread while it is open, and with several workers (pytest-xdist) a worker
# runs other files after a browser module, whose asyncio tests need that loop gone.
@pytest.fixture(scope="module")
def browser():
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield b
        b.close()


# Every toast's words, kept in `window.__toasts` for a failing test to report (a toast fades in
# seconds; a test times out in tens).
TOASTS_KEPT = """
document.addEventListener("DOMContentLoaded", () => {
  globalThis.__toasts = [];
  new MutationObserver((changes) => {
    for (const c of changes) for (const n of c.addedNodes)
      if (n.classList && n.classList.contains("toast")) globalThis.__toasts.push(n.textContent);
  }).observe(document.body, { childList: true, subtree: true });
});
"""


@pytest.fixture
def new_page(browser, web_server):
    """new_page(name, **context) -> a page on the server's lobby in a fresh context (a new player)."""
    contexts = []
    errors: list[str] = []

    def make(name: str | None = None, width: int = 1280, height: int = 860, **context):
        # `context`: more of the browser context's options (timezone_id, locale: another reader's clock)
        ctx = browser.new_context(viewport={"width": width, "height": height}, **context)
        contexts.append(ctx)
        page = ctx.new_page()
        page.on("pageerror", lambda e: errors.append(f"{name}: {e}"))
        page.on("console", lambda m: print(f"[{name}] {m.text}"))

        def refused(msg: sync_api.ConsoleMessage, name: str | None = name) -> None:
            # What the Content-Security-Policy of server/net/http.py blocks, Chromium reports on
            # the console ("Refused to … because it violates the following Content Security
            # Policy directive"): the page must need nothing it refuses.
            if "Content Security Policy" in msg.text:
                errors.append(f"{name}: {msg.text}")

        page.on("console", refused)
        page.set_default_timeout(DEADLINE * 1000)
        if os.environ.get("SOLRACE_DEBUG"):
            page.add_init_script("globalThis.SOLRACE_DEBUG = true")
        if name:
            page.add_init_script(f"localStorage.setItem('solrace.name', {name!r})")
        page.add_init_script(TOASTS_KEPT)
        page.goto(web_server.http + "/")
        page.wait_for_selector(".net.online")
        return page

    yield make
    for ctx in contexts:
        ctx.close()
    assert not errors, f"uncaught errors in the page: {errors}"


def shot(page, name: str, full_page: bool = False) -> Path:
    """A screenshot of the page, once its text shows no value JavaScript lost on the way
    ("null", "undefined", "NaN", "[object Object]" among the words a player reads)."""
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=full_page)
    text = page.locator("body").inner_text()
    lost = re.findall(r"null|undefined|\bNaN\b|\[object Object\]", text)
    assert not lost, f"{name}: the page shows {lost}: {text[:2000]}"
    return path


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


# ----------------------------------------------------------------------------- bots


class Bot:
    """A client-library player on its own thread and event loop.

    bot.call(coro_fn) runs `await coro_fn(client)` on the bot's loop and
    returns the result; bot.play(race, delay) starts a background task that
    plays moves chosen by a client/bots strategy every `delay` seconds until
    won, out of moves, or `bot.stop_playing()`.
    """

    def __init__(self, ws_url: str, name: str, strategy: str = "greedy") -> None:
        from client.library import connect

        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.strategy_name = strategy
        self.task: concurrent.futures.Future[None] | None = None
        self.moves = 0
        self.client = self.call(lambda _: connect(ws_url, name=name).__aenter__())

    def call(self, fn, timeout: float = 20):
        async def run():
            return await fn(getattr(self, "client", None))

        return asyncio.run_coroutine_threadsafe(run(), self.loop).result(timeout)

    def play(self, race: str, delay: float = 0.3, max_moves: int | None = None) -> None:
        from client.bots.strategies import make

        strategy = make(self.strategy_name)
        self._stop = False

        async def run(c):
            board = c.board(race)
            while not self._stop and (max_moves is None or self.moves < max_moves):
                if not board.has_view:
                    await asyncio.sleep(0.05)
                    continue
                if board.status != "playing" and board.status != "ready" and board.status != "waiting":
                    return
                move = strategy.choose(board.view)
                if move is None:
                    return
                try:
                    await c.move(race, move)
                except Exception:  # illegal after a resync: ask again
                    await asyncio.sleep(0.05)
                    continue
                self.moves += 1
                await asyncio.sleep(delay)

        self.task = asyncio.run_coroutine_threadsafe(run(self.client), self.loop)

    def stop_playing(self) -> None:
        self._stop = True
        if self.task is not None:
            try:
                self.task.result(10)
            except Exception:
                pass

    def close(self) -> None:
        self._stop = True
        if self.task is not None:
            self.task.cancel()  # a sleeping play task would die pending with the loop
            try:
                self.task.result(5)
            except BaseException:
                pass
        try:
            self.call(lambda c: c.close(), timeout=10)
        except Exception:
            pass
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)


@pytest.fixture
def make_bot(web_server):
    bots: list[Bot] = []

    def make(name: str = "bot", strategy: str = "greedy") -> Bot:
        b = Bot(web_server.ws, name, strategy)
        bots.append(b)
        return b

    yield make
    for b in bots:
        b.close()


class Restartable:
    """A server of a test's own that `restart()` stops and starts again at the same port and
    data folder (a lost connection that comes back, for the pages on it)."""

    def __init__(self, tmp: Path, **flags: Any) -> None:
        self.tmp, self.flags = tmp, flags
        self.server = Server(tmp, **flags)

    def restart(self) -> Server:
        port = self.server.port
        self.server.stop()
        self.server = Server(self.tmp, port=port, **self.flags)
        return self.server


@pytest.fixture
def bots():
    """The `Bot`s a test makes (it appends them), closed at its end."""
    made: list[Bot] = []
    yield made
    for b in made:
        b.close()
