"""The play app's connection dropping and coming back (its `disconnected` and `reconnected`
events): said on the status line, in the header and on the menu while it is lost; once back,
the race on screen resynced, or the wait in the quick-match queue, which the server ended
with the lost connection, asked for again.

The play app (``play_app``) keeps the connection's state (``connection_lost``, ``lost_said``)
for its requests, which are refused while it is lost; these functions change it."""

from __future__ import annotations

from typing import Any, Protocol

from textual.worker import Worker

from .errors import ServerError, connection_lost_text
from .intent import Intent
from .menu_flow import MenuFlow
from .model import RaceModel
from .race_text import REQUEUE_LATER, requeue_refused_text, started_text
from .session import Session, start


class PlayScreen(Protocol):
    """What these functions use of the play app (not imported: the app imports them)."""

    connection_lost: str | None
    lost_said: str | None
    menu_flow: MenuFlow
    model: RaceModel
    queued_since: int

    @property
    def online(self) -> bool: ...

    def say(self, text: str, error: bool = False) -> None: ...
    def refresh_info(self) -> None: ...
    def redraw(self) -> None: ...
    def resync(self, said: str | None = None) -> Worker[None]: ...
    def player_session(self) -> Session | None: ...
    def run_worker(self, work: Any, name: str | None = "", group: str = "default") -> Worker[Any]: ...


def connection_changed(app: PlayScreen, ev: dict[str, Any]) -> None:
    """The connection dropped (a `disconnected` event) or is back (`reconnected`)."""
    lost = ev.get("t") == "disconnected"
    app.connection_lost = connection_lost_text(ev) if lost else None
    if lost and app.lost_said is None:
        app.say(app.connection_lost or "", error=True)
    elif not lost:
        app.lost_said = None
        app.say("reconnected")
    app.refresh_info()  # the header says it too, until `reconnected`
    if app.menu_flow.menu is not None:  # it said "connected to HOST" all along
        app.menu_flow.menu.show_connection(lost)
    if lost:
        return
    if app.model.status == "queued":
        # The server took the wait out of the queue with the lost connection (docs/protocol.md
        # §3 `quick`): the screen said "waiting" for ever, and nobody was matched with it.
        app.run_worker(queue_again(app), "queue_again", "resync")
    else:
        app.resync()


async def queue_again(app: PlayScreen) -> None:
    """Back in the quick-match queue once reconnected: `quick` again, for the same game, seats
    and queue (rated or not), as the browser does on its `welcome`. Refused, the wait is over:
    said, with the menu's way on; lost again, the next `reconnected` asks again."""
    m, s = app.model, app.player_session()
    if s is None:
        return
    intent = Intent("quick", m.game, m.seats, rated=m.rated)
    try:
        reply = await start(s, intent)
    except ServerError as e:
        if app.model is not m or m.status != "queued" or e.code in REQUEUE_LATER:
            return
        app.menu_flow.refused = requeue_refused_text(e, intent)  # on the board, as a refused start
        app.model = RaceModel(me=m.me, game=m.game)
        app.say(app.menu_flow.refused, error=True)
        app.redraw()
        return
    if app.model is m and m.status == "queued":  # not seated meanwhile (the race's event comes after)
        m.apply(reply)
        app.queued_since = 0  # a new wait: the server counts it from now
        app.say(f"reconnected — back in the queue: {started_text(intent, reply, app.online)}")
