"""The terminal apps' :class:`~client.tui.session.Session` over the asyncio client library.

The library (``client.library``) owns the socket, reconnects with the session
token, resends unacknowledged moves, tracks race versions and resyncs on a
gap, and fails over between several server URLs (processes sharing one
Redis), resuming the session on whichever answers. This adapter only turns its typed messages into the protocol's dicts (so
the apps and their tests see exactly the wire shapes of docs/protocol.md),
its errors into :class:`ServerError`, and keeps the token on disk.

The token file holds a guest's token or an account's (``PLAYER.SECRET``, the
only tokens with a ``.``, docs/protocol.md §9; ``solrace play --login`` and
``--claim`` write one there, ``--logout`` removes it: client/tui/account.py).
A refused guest token is replaced by a new guest, said in one line; a refused
account token is not: a new guest would silently stand in for the account, so
:func:`open_session` stops with :class:`AccountSessionEnded` (which says how
to log in again) and leaves the file as it is.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from protocol.messages import ErrorCode

from .errors import REPLY_LOST, ServerError
from .player_net import PLAYER_TYPES, player_request
from .session import now_ms

if TYPE_CHECKING:
    from client.library.connection import Client

DEFAULT_TOKEN_FILE = "~/.config/solrace/token"


def token_path(path: str | None) -> Path:
    return Path(os.path.expanduser(path or os.environ.get("SOLRACE_TOKEN_FILE") or DEFAULT_TOKEN_FILE))


def load_token(path: Path) -> str | None:
    try:
        return path.read_text().strip() or None
    except OSError:
        return None


def write_token(path: Path, token: str) -> None:
    """Write the token file, readable by its owner only; `OSError` if it cannot be written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(fd, 0o600)  # a file made before (or by hand) with a wider mode is narrowed too
    with os.fdopen(fd, "w") as f:
        f.write(token + "\n")


def save_token(path: Path, token: str | None) -> None:
    if not token:
        return
    try:
        write_token(path, token)
    except OSError:
        pass  # not fatal: the next run gets a new identity


def is_account_token(token: str | None) -> bool:
    """An account's token (``PLAYER.SECRET``), not a guest's (docs/protocol.md §9)."""
    return bool(token) and "." in str(token)


class AccountSessionEnded(ServerError):
    """The stored account token was refused (`bad-token`): logged out, the password
    changed, or unused for the session's lifetime. The token file is left untouched."""

    def __init__(self, path: Path):
        super().__init__(
            "bad-token",
            f"your account session ended (logged out, password changed, or unused for 30 days): "
            f"log in again with: solrace play --login NAME"
            f"{'' if path == token_path(None) else f' --token-file {path}'}"
            f" — or run solrace play --logout to play as a new guest (it removes {path})",
        )
        self.path = path


def tell(line: str) -> None:
    """One line for the user outside a terminal app: on stderr. (Inside one, stdout and
    stderr are not the screen: :func:`connector` keeps the line in the session's
    ``notices``, which the app shows as a notification.)"""
    print(line, file=sys.stderr)


def to_dict(msg: Any) -> dict[str, Any]:
    """A library event or reply as the protocol's dict (``t`` = wire tag)."""
    from client.library.connection import ConnectionLost, Reconnected

    if isinstance(msg, dict):
        return msg
    if isinstance(msg, ConnectionLost):
        return {"t": "disconnected", "code": msg.code, "reason": msg.reason}
    if isinstance(msg, Reconnected):
        return {"t": "reconnected", "attempts": msg.attempts}
    out = msgspec.to_builtins(msg)
    return out if isinstance(out, dict) else {"t": "unknown", "value": out}


class NetSession:
    """A live server connection, in the shape the apps want."""

    #: the library resyncs by itself when a race version jumps
    handles_gaps = True
    #: a server session: the daily challenge and ratings are there (not offline)
    online = True

    def __init__(self, client: Client):
        self.client = client
        self.token_file: Path | None = None  # where its token is kept (open_session)
        self.player: str = client.player
        self.name: str = client.name
        self.events: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        #: lines for the user from the connection's opening (a new guest stood in for an
        #: expired one), for the app to show: :func:`connector` fills it
        self.notices: list[str] = []
        self._pump: asyncio.Task[None] | None = None
        self._clock: asyncio.Task[None] | None = None
        welcome = client.welcome
        #: unfinished races where this identity holds a seat (from `welcome`)
        self.seated_races: list[str] = list(welcome.races)
        self._offset = (welcome.time - now_ms()) if welcome.time else 0.0

    async def start(self) -> None:
        with contextlib.suppress(Exception):
            await self.client.ping()
        self._pump = asyncio.ensure_future(self._forward())
        self._clock = asyncio.ensure_future(self._ping_every(30.0))

    async def _forward(self) -> None:
        async for ev in self.client.events():
            self.events.put_nowait(to_dict(ev))
        self.events.put_nowait({"t": "disconnected", "code": None, "reason": "connection closed"})

    async def _ping_every(self, seconds: float) -> None:
        while True:
            await asyncio.sleep(seconds)
            with contextlib.suppress(Exception):
                await self.client.ping()

    @property
    def logged_in(self) -> bool:
        """This session is an account's (its token is an account token), not a guest's."""
        return is_account_token(self.client.token)

    @property
    def spectator_delay_ms(self) -> int | None:
        """How late the server sends spectators the boards (its welcome's `SPECTATOR_DELAY`),
        or None if it did not say."""
        delay = self.client.limits.get("SPECTATOR_DELAY")
        return delay if isinstance(delay, int) else None

    def server_now(self) -> int:
        off = self.client.clock_offset_ms
        return int(now_ms() + (off if off is not None else self._offset))

    async def request(self, t: str, **f: Any) -> dict[str, Any]:
        """The request ``t``'s reply as a dict; a :class:`ServerError` for an ``error`` reply,
        and for what the connection did: ``disconnected`` at once while it is lost (the library
        would hold the request for its reconnection, up to its 10 s timeout: a menu's list said
        nothing meanwhile), ``reply-lost`` at once when it dropped after the request was sent
        (the server may have done it: a move is not resent, the player decides again on the
        board the reconnection brings), ``timeout`` when the server did not answer."""
        from client.library.connection import Disconnected, ReplyLost
        from client.library.connection import ServerError as LibError

        c = self.client
        if not c.connected:
            raise ServerError("disconnected", "not connected")
        reply: object
        try:
            if t == "move":
                reply = await c.move(f["race"], f["move"], view=bool(f.get("view")), resend=False)
            elif t == "ready":
                reply = await c.ready(f["race"], f.get("ready", True))
            elif t == "create":
                rated = bool(f.get("rated"))
                reply = await c.create(
                    f["game"],
                    f.get("seats", 2),
                    # a rated race runs on the server's clock: none is sent
                    None if rated else f.get("time_limit_s", 600),
                    f.get("private", False),
                    rated=rated,
                )
            elif t == "quick":
                reply = await c.quick(f["game"], f.get("seats", 2), rated=bool(f.get("rated")))
            elif t == "unqueue":
                reply = await c.unqueue(f["game"])
            elif t == "resync":
                reply = await c.resync(f["race"], since=f.get("since"), invite=f.get("invite"))
            elif t == "races":
                reply = await c.races(f.get("game"))
            elif t == "ping":
                reply = await c.ping()
            elif t == "hint":
                reply = await c.hint(f["race"])
            elif t == "analysis":
                reply = await c.analysis(f["race"], invite=f.get("invite"))
            elif t in ("join", "spectate", "replay"):
                reply = await getattr(c, t)(f["race"], invite=f.get("invite"))
            elif t in ("leave", "start", "finish", "unspectate"):
                reply = await getattr(c, t)(f["race"])
            elif t == "bot":
                from protocol.messages import Bot

                reply = await c.request(Bot(race=f["race"], level=f.get("level")))
            elif t == "rematch":
                from protocol.messages import Rematch

                reply = await c.request(Rematch(race=f["race"]))
            elif t.startswith("arena"):
                from .arena_net import arena_request

                reply = await arena_request(c, t, f)
            elif t in PLAYER_TYPES:
                reply = await player_request(c, t, f)
            else:
                raise ServerError(ErrorCode.UNKNOWN_TYPE, f"the client does not send {t!r}")
        except LibError as e:
            extra = {
                k: getattr(e, k)
                for k in ("reason", "n", "field", "retry_ms")
                if getattr(e, k, None) is not None
            }
            raise ServerError(str(e.code), e.message or "", **extra) from None
        except ReplyLost as e:
            raise ServerError(REPLY_LOST, str(e)) from None
        except (Disconnected, ConnectionError) as e:
            raise ServerError("disconnected", str(e) or "not connected") from None
        except TimeoutError:
            raise ServerError("timeout", "no reply from the server") from None
        return to_dict(reply)

    async def close(self) -> None:
        for task in (self._pump, self._clock):
            if task is not None:
                task.cancel()
        with contextlib.suppress(Exception):
            await self.client.close()


async def open_session(
    url: str | Sequence[str],
    name: str | None = None,
    token_file: str | None = None,
    reconnect: bool = True,
    say: Callable[[str], None] | None = None,
) -> NetSession:
    """Connect (resuming the stored token) and start the event pump.

    ``url``: one server URL or several (the library fails over between them).
    A refused guest token is replaced by a new guest (said by ``say``, one line; default
    :func:`tell`, on stderr); a refused account token raises :class:`AccountSessionEnded`,
    the file untouched.
    """
    from client.library.connection import ServerError as LibError
    from client.library.connection import connect

    path = token_path(token_file)
    token = load_token(path)
    client = connect(url, name=name, token=token, reconnect=reconnect)
    try:
        await client.open()
    except LibError as e:
        if e.code != "bad-token":
            raise
        if is_account_token(token):
            raise AccountSessionEnded(path) from None
        client = connect(url, name=name, token=None, reconnect=reconnect)
        await client.open()
        (say or tell)(
            f"your guest session had ended (its token is unknown to the server): "
            f"you now play as a new guest, {client.name}"
        )
    save_token(path, client.token)
    session = NetSession(client)
    session.token_file = path
    await session.start()
    return session


def connector(
    url: str | Sequence[str], name: str | None = None, token_file: str | None = None
) -> Callable[[], Awaitable[NetSession]]:
    """An async callable opening a :class:`NetSession` (what the apps take). What the
    opening has to tell the user is kept in the session's ``notices``: the app, whose
    screen stdout and stderr are not, shows them (``App.notify``)."""

    async def connect() -> NetSession:
        notices: list[str] = []
        session = await open_session(url, name, token_file, say=notices.append)
        session.notices.extend(notices)
        return session

    return connect
