"""The HTTP side of the WebSocket port (docs/operations.md).

`/healthz` (200 when Redis answers and takes writes, else 503 and why, within HEALTH_TIMEOUT_S whatever
Redis does), `/metrics` (Prometheus text),
`/games.json` (every game's display facts from `protocol.rules.game_facts`, so that the web client
draws the boards from the same definitions as the engine), and the web client's static files at `/`. A GET
whose `Upgrade` header names the `websocket` token goes to the WebSocket handler whatever its path (the
protocol names `/ws`).

Every response of this module carries `SECURITY_HEADERS` and a Content-Security-Policy (`_csp`) that lets
the web client load its scripts and styles from this origin and open its WebSocket to this host, and
nothing else. GET and HEAD only (HEAD: the GET's headers, no body); any other method gets 405 with
`Allow: GET, HEAD`. A path longer than `MAX_PATH` characters (as sent) gets 414. A static file's path is
percent-decoded once: one that decodes to a NUL or to bytes that are not UTF-8 gets 400; one that names no
readable file under the static folder (whatever the reason: missing, a directory, outside the folder once
decoded, a name the filesystem refuses as too long, unreadable) gets 404, never a traceback. Responses that websockets makes itself (a failed WebSocket
handshake, a request line over 8 KiB, header lines too large, 503 while stopping) get them too:
`SecureProtocol` adds them to every response as it is sent, but the 101 that opens a WebSocket.

A WebSocket upgrade from a browser page of another site is refused (403, `origin_allowed`): its
`Origin` must name the request's own `Host` or be one of `--allowed-origins`; a request with no
`Origin` is not a browser's (the terminal client, bots, scripts) and is let in. Tokens live in the
page's storage, not in cookies, so such a page could not act as its visitor, but it could spend the
visitor's address allowances (connections, new sessions a minute) for every player behind that address.

`/metrics` answers only clients whose address (the peer's, or the one a trusted proxy forwarded) lies in
`--metrics-from` (default: loopback and the private ranges); everyone else gets the 404 of a missing file,
so that the counters of a public server are not public. It waits at most RACE_COUNT_TIMEOUT_S for Redis's
count of the races; without it the scrape leaves `solrace_races` out and says `solrace_redis_up 0`.
"""

from __future__ import annotations

import asyncio
import json
import mimetypes
import re
from http import HTTPStatus
from pathlib import Path
from urllib.parse import unquote

from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.http11 import Request, Response
from websockets.server import ServerProtocol

from protocol.rules import game_facts

from ..config import Settings
from ..metrics import Metrics
from ..storage import Store
from .addresses import client_address, in_networks, parse_networks

DEFAULT_STATIC = Path(__file__).resolve().parents[2] / "client" / "web" / "static"

# The longest path served: the client's own paths are a few dozen characters, and the filesystem
# refuses a component over 255 bytes anyway (such paths get 404, like any missing file).
MAX_PATH = 1024

METHODS = ("GET", "HEAD")

# The longest /metrics waits for Redis to count the races: well under a scraper's timeout
# (Prometheus: 10 s by default), so that a stalled Redis shows as `solrace_redis_up 0` and a gap
# in `solrace_races`, not as a failed scrape that hides every other series (or, after
# --redis-timeout-s, as a count of 0).
RACE_COUNT_TIMEOUT_S = 1.0
# The longest /healthz waits for Redis (docs/operations.md §10).
HEALTH_TIMEOUT_S = 2.0

SECURITY_HEADERS = (
    ("X-Content-Type-Options", "nosniff"),
    ("X-Frame-Options", "DENY"),
    # A private race's invite is in the URL fragment, which browsers never send as a referrer;
    # send nothing at all anyway.
    ("Referrer-Policy", "no-referrer"),
)

# Scripts (the ES modules and the vendored msgpack), styles, the favicon, /games.json: this origin.
# No inline styles: the client sets styles through the CSSOM, never as `style` attributes
# (tests/web/test_board_input.py). Inline scripts, eval, plugins, frames, <base>: none. WebSocket:
# the same host over ws: or wss: (older browsers do not count ws(s) to this host as 'self').
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src {connect}; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)

# A Host header that can safely be written into the policy: a name or IPv4 address, or a bracketed
# IPv6 address, with an optional port. Anything else (no Host, several, odd characters) gets 'self' only.
_HOST = re.compile(r"(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?")


def _authority(host: str) -> str:
    """`host[:port]` lower-cased, without the scheme's default port (80 for ws/http, 443 for wss/https)."""
    host = host.strip().lower()
    for default in (":80", ":443"):
        if host.endswith(default):
            return host[: -len(default)]
    return host


def origin_allowed(headers: Headers, allowed: frozenset[str]) -> bool:
    """Whether a WebSocket upgrade may come from the page that sent it (see the module docstring)."""
    origins = headers.get_all("Origin")
    if not origins:
        return True
    if len(origins) > 1:
        return False
    origin = origins[0].strip().lower().rstrip("/")
    if origin in allowed:
        return True
    scheme, sep, rest = origin.partition("://")
    hosts = headers.get_all("Host")
    return (
        bool(sep)
        and scheme in ("http", "https")
        and len(hosts) == 1
        and _authority(rest) == _authority(hosts[0])
    )


def _csp(headers: Headers | None) -> str:
    hosts = [] if headers is None else headers.get_all("Host")
    connect = "'self'"
    if len(hosts) == 1 and _HOST.fullmatch(hosts[0]):
        connect += f" ws://{hosts[0]} wss://{hosts[0]}"
    return CSP.format(connect=connect)


class SecureProtocol(ServerProtocol):
    """websockets' server protocol, sending SECURITY_HEADERS and a CSP with every HTTP response.

    Our own responses have them already (`Http`); websockets makes some itself where no hook of
    ours runs: 414 and 431 while it reads the request, 503 once the server is stopping. Every
    response goes through `send_response`, so this is the one place that sees them all. The
    request is not known here: the CSP lets the page connect to its own origin only.
    """

    def send_response(self, response: Response) -> None:
        headers = response.headers
        if response.status_code == 101:
            # A 101 is no document: a browser applies none of these to it. websockets keeps the
            # response for the connection's life, and they made 2.5 KB of every idle connection.
            super().send_response(response)
            return
        for name, value in SECURITY_HEADERS:
            if name not in headers:
                headers[name] = value
        if "Content-Security-Policy" not in headers:
            headers["Content-Security-Policy"] = _csp(None)
        super().send_response(response)


def _retrieve(future: asyncio.Future[str | None]) -> None:
    """Mark a check's exception as seen (it may end after every waiter has given up on it)."""
    if not future.cancelled():
        future.exception()


def is_websocket_upgrade(request: Request) -> bool:
    """A GET whose Upgrade header(s) list the token `websocket` (RFC 9110 §7.8: comma-separated,
    case-insensitive; `websocket/13` names a version of it). Not a substring: `notwebsocket` is not it."""
    if request.method != "GET":
        return False
    for value in request.headers.get_all("Upgrade"):
        for token in value.split(","):
            if token.strip().split("/", 1)[0].strip().lower() == "websocket":
                return True
    return False


class Http:
    def __init__(self, settings: Settings, store: Store, metrics: Metrics) -> None:
        self.store = store
        self.metrics = metrics
        self.trusted = parse_networks(settings.trusted_proxies, "trusted-proxies")
        self.metrics_from = parse_networks(settings.metrics_from, "metrics-from", private=True)
        self.allowed_origins = frozenset(
            o.strip().lower().rstrip("/") for o in settings.allowed_origins.split(",") if o.strip()
        )
        self.static = Path(settings.static).resolve() if settings.static else DEFAULT_STATIC
        self.games_json = json.dumps(game_facts(), ensure_ascii=False).encode()
        self._check: asyncio.Future[str | None] | None = None  # the /healthz check under way

    async def process_request(self, connection: ServerConnection, request: Request) -> Response | None:
        if request.method not in METHODS:
            response = self._response(405, b"method not allowed\n", "text/plain")
            response.headers["Allow"] = ", ".join(METHODS)
        elif is_websocket_upgrade(request):
            if origin_allowed(request.headers, self.allowed_origins):
                return None
            self.metrics.refused_origin += 1
            response = self._response(
                403, b"this page's origin may not open a WebSocket here\n", "text/plain"
            )
        else:
            response = await self._route(request.path.split("?", 1)[0], connection, request)
        response.headers["Content-Security-Policy"] = _csp(request.headers)
        if request.method == "HEAD":  # the GET's headers (Content-Length included), no body
            response = Response(response.status_code, response.reason_phrase, response.headers, b"")
        return response

    def _may_see_metrics(self, connection: ServerConnection, request: Request) -> bool:
        peer = str((connection.remote_address or ("?",))[0])
        addr = client_address(peer, request.headers.get_all("X-Forwarded-For"), self.trusted)
        return in_networks(addr, self.metrics_from)

    async def _route(self, path: str, connection: ServerConnection, request: Request) -> Response:
        if len(path) > MAX_PATH:
            return self._response(414, b"uri too long\n", "text/plain")
        if path == "/healthz":
            problem = await self._health()
            if problem is None:
                return self._response(200, b"ok\n", "text/plain")
            return self._response(503, problem.encode() + b"\n", "text/plain")
        if path == "/metrics":
            if not self._may_see_metrics(connection, request):
                return self._response(404, b"not found\n", "text/plain")
            body = self.metrics.render(await self._races_by_status()).encode()
            return self._response(200, body, "text/plain; version=0.0.4")
        if path == "/games.json":
            return self._response(200, self.games_json, "application/json; charset=utf-8")
        return self._static(path)

    async def _health(self) -> str | None:
        """Why Redis cannot take writes (None: it can), within HEALTH_TIMEOUT_S whatever Redis does.

        Requests that arrive while a check is under way share it: a balancer polling a stalled
        Redis costs one waiting connection, not one per poll. A check that has not answered in
        time is cancelled without waiting for it to wind down (a connection to a stopped Redis
        may take its time), so the answer, 503, is never later than the timeout."""
        check = self._check
        if check is None or check.done():
            check = self._check = asyncio.ensure_future(self.store.health.check())
            check.add_done_callback(_retrieve)
        done, _ = await asyncio.wait({check}, timeout=HEALTH_TIMEOUT_S)
        if done and not check.cancelled():
            try:
                return check.result()
            except Exception:
                return "redis unreachable"
        check.cancel()
        return f"redis unreachable (no answer within {HEALTH_TIMEOUT_S:g} s)"

    async def _races_by_status(self) -> dict[str, int] | None:
        """The whole-cluster race count, or None when Redis fails it or does not answer within
        RACE_COUNT_TIMEOUT_S (the scrape then shows `solrace_redis_up 0` and no `solrace_races`)."""
        try:
            async with asyncio.timeout(RACE_COUNT_TIMEOUT_S):
                return await self.store.race_counts()
        except Exception:
            return None

    def _static(self, path: str) -> Response:
        # Percent-decoded once (`/my%20file.js` names `my file.js`), after the MAX_PATH check on
        # the path as sent (decoding only shortens it). A name that is not UTF-8, or holds a NUL
        # (which no file name can), is a malformed request; what it decodes to (`%2e%2e/`,
        # `%2f`) is held to the static folder below like any other path.
        try:
            path = unquote(path, errors="strict")
        except UnicodeDecodeError:
            return self._response(400, b"bad path\n", "text/plain")
        if "\x00" in path:
            return self._response(400, b"bad path\n", "text/plain")
        if path in ("", "/"):
            path = "/index.html"
        root = self.static
        try:
            target = (root / path.lstrip("/")).resolve()
        except (OSError, ValueError):
            return self._response(404, b"not found\n", "text/plain")
        if not target.is_relative_to(root):
            return self._response(404, b"not found\n", "text/plain")
        try:
            # is_file() raises for a name the filesystem refuses (ENAMETOOLONG), read_bytes() for an
            # unreadable file or one removed meanwhile: a 404, not a 500 and a logged traceback.
            if not target.is_file():
                return self._response(404, b"not found\n", "text/plain")
            body = target.read_bytes()
        except (OSError, ValueError):
            return self._response(404, b"not found\n", "text/plain")
        ctype = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
        if ctype.startswith("text/") or ctype in ("application/javascript", "image/svg+xml"):
            ctype += "; charset=utf-8"
        return self._response(200, body, ctype)

    @staticmethod
    def _response(status: int, body: bytes, ctype: str) -> Response:
        headers = Headers(
            [
                ("Content-Type", ctype),
                ("Content-Length", str(len(body))),
                ("Cache-Control", "no-cache"),
                *SECURITY_HEADERS,
            ]
        )
        return Response(status, HTTPStatus(status).phrase, headers, body)
