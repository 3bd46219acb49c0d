"""The HTTP side of the WebSocket port (docs/operations.md).

`/healthz` (200 when Redis answers and takes writes, else 503 and why), `/metrics` (Prometheus text),
`/games.json` (every game's display facts from `protocol.rules.game_facts`, so that the web client
draws the boards from the same definitions as the engine), and the web client's static files at `/`. A request with `Upgrade: websocket`
goes to the WebSocket handler whatever its path (the protocol names `/ws`).
"""

from __future__ import annotations

import asyncio
import json
import mimetypes
from http import HTTPStatus
from pathlib import Path

from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from protocol.rules import game_facts

from ..config import Settings
from ..metrics import Metrics
from ..storage import Store

DEFAULT_STATIC = Path(__file__).resolve().parents[2] / "client" / "web" / "static"


class Http:
    def __init__(self, settings: Settings, store: Store, metrics: Metrics) -> None:
        self.store = store
        self.metrics = metrics
        self.static = Path(settings.static).resolve() if settings.static else DEFAULT_STATIC
        self.games_json = json.dumps(game_facts(), ensure_ascii=False).encode()

    async def process_request(self, connection: ServerConnection, request: Request) -> Response | None:
        if "websocket" in request.headers.get("Upgrade", "").lower():
            return None
        path = request.path.split("?", 1)[0]
        if path == "/healthz":
            try:
                problem = await asyncio.wait_for(self.store.health.check(), 2.0)
            except TimeoutError:
                problem = "redis unreachable (no answer within 2 s)"
            if problem is None:
                return self._response(200, b"ok\n", "text/plain")
            return self._response(503, problem.encode() + b"\n", "text/plain")
        if path == "/metrics":
            body = self.metrics.render(await self._races_by_status()).encode()
            return self._response(200, body, "text/plain; version=0.0.4")
        if path == "/games.json":
            return self._response(200, self.games_json, "application/json; charset=utf-8")
        return self._static(path)

    async def _races_by_status(self) -> dict[str, int]:
        try:
            return await self.store.race_counts()
        except Exception:
            return {}

    def _static(self, path: str) -> Response:
        if path in ("", "/"):
            path = "/index.html"
        root = self.static
        try:
            target = (root / path.lstrip("/")).resolve()
        except (OSError, ValueError):
            return self._response(404, b"not found\n", "text/plain")
        if not target.is_relative_to(root) or not target.is_file():
            return self._response(404, b"not found\n", "text/plain")
        ctype = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
        if ctype.startswith("text/") or ctype in ("application/javascript", "image/svg+xml"):
            ctype += "; charset=utf-8"
        return self._response(200, target.read_bytes(), ctype)

    @staticmethod
    def _response(status: int, body: bytes, ctype: str) -> Response:
        headers = Headers(
            [("Content-Type", ctype), ("Content-Length", str(len(body))), ("Cache-Control", "no-cache")]
        )
        return Response(status, HTTPStatus(status).phrase, headers, body)
