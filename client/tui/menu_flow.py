"""The play app's way into a race and back out of it: connect (the session's events then go
to the race screen), go back to a race the token still holds a seat in, else the menu, and
start the chosen race; later the `menu` command (leave the quick-match queue, or a race
the player's own game in is over, for the menu; Esc there goes back to that race); a
rematch of a finished race, asked for (`rematch`, or `--rematch` on the command line) or
offered by a rival (`accept`, or the menu's Accept when the offer comes once the `menu`
command left the race; its "No thanks" forgets the offer); on quit, the queue left and the
session closed.

The race screen (``play_app``) owns the widgets and the race's state; this flow acts on
them through :class:`RaceScreen`, and what it decides and says are plain functions
(``race_commands``, ``race_text``)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, Protocol

from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.worker import Worker

from .errors import ServerError, connect_error_text
from .intent import Intent
from .menu import MenuScreen
from .model import RaceModel
from .race_commands import (
    RematchWord,
    menu_refusal,
    offer_for,
    offer_place,
    rematch_refusal,
    seat_on_resume,
)
from .race_text import (
    next_text,
    rematch_not_ready_text,
    rematch_offer_text,
    start_refused_text,
    started_text,
    unreachable_text,
)
from .session import Session, start


class RaceScreen(Protocol):
    """What the flow uses of the play app: the race's state, the status line, the board,
    the command line, and textual's workers, screens and notifications."""

    #: opens the session (tests swap it before the app runs)
    connect: Callable[[], Awaitable[Session]]
    #: what the command line asked for; None: the menu
    intent: Intent | None
    #: the menu's first choice
    default_game: str | None
    default_seats: int
    server_url: str | None
    #: where quitting leads when the race is played for another app: no menu then
    back_to: str | None
    session: Session | None
    model: RaceModel
    selected: tuple[str, int] | None
    moves_sent: list[str]
    #: races put behind: their events are ignored
    races_left: set[str]
    daily_race: str | None
    connect_failed: bool
    #: a rival's latest rematch offer
    rematch_offer: dict[str, Any] | None

    @property
    def online(self) -> bool: ...

    def rematch_word(self) -> RematchWord: ...
    async def request(self, t: str, **fields: Any) -> dict[str, Any]: ...
    def player_session(self) -> Session | None: ...
    def say(self, text: str, error: bool = False) -> None: ...
    def redraw(self) -> None: ...
    def resync(self) -> Worker[None]: ...
    def on_server_event(self, ev: dict[str, Any]) -> None: ...
    def show_cannot_connect(self, text: str) -> None: ...
    def show_command_line(self, shown: bool) -> None: ...
    def notify(
        self, message: str, *, severity: SeverityLevel = "information", timeout: float | None = None
    ) -> None: ...
    def run_worker(
        self,
        work: Callable[[], Coroutine[Any, Any, None]],
        name: str | None = "",
        group: str = "default",
        *,
        exclusive: bool = False,
    ) -> Worker[None]: ...
    async def push_screen_wait(self, screen: Screen[Intent | None]) -> Intent | None: ...


class MenuFlow:
    """Connects, then leads ``app`` into a race and, on the `menu` command, out of it."""

    def __init__(self, app: RaceScreen):
        self.app = app
        #: the menu while it is open, and the race the `menu` command left for it
        self.menu: MenuScreen | None = None
        self.left: RaceModel | None = None
        #: why the race asked for was refused, while no other is chosen (on the board)
        self.refused: str | None = None

    def main(self) -> Worker[None]:
        """Connect, then the race: the one asked for, a seated one, or the menu's choice."""
        return self.app.run_worker(self._main, "main", "main", exclusive=True)

    async def _main(self) -> None:
        app = self.app
        try:
            app.session = await app.connect()
        except Exception as e:  # noqa: BLE001 — shown to the user
            app.connect_failed = True
            why = connect_error_text(e)  # words; the exception itself goes to the log
            app.say(f"cannot connect: {why}", error=True)
            from client.library import Unreachable  # here: the offline app needs no network

            unreachable = isinstance(e, Unreachable)
            app.show_cannot_connect(
                unreachable_text(app.server_url) if unreachable else f"cannot connect: {why}"
            )
            return
        for line in getattr(app.session, "notices", ()):  # e.g. a new guest stood in
            app.notify(line, severity="warning", timeout=15)
        app.model.me = app.session.player
        self.pump()
        intent = app.intent
        seated = list(getattr(app.session, "seated_races", None) or [])
        if intent is None and seated and await self.resume_seated(seated):
            return
        while intent is None:  # the first menu has nothing to go back to: no None from it
            intent = await self.choose()
        await self.begin(intent)

    def pump(self) -> Worker[None]:
        """The session's events, one by one, to the race screen."""
        return self.app.run_worker(self._pump, "pump", "pump")

    async def _pump(self) -> None:
        s = self.app.session
        assert s is not None
        while True:
            ev = await s.events.get()
            self.app.on_server_event(ev)

    async def resume_seated(self, seated: list[str]) -> bool:
        """Back to a race the token still holds a seat in, if the player's own game in it is
        not over: one that goes on only for the others is left to them (the menu instead)."""
        app = self.app
        over = []
        for rid in reversed(seated):
            await self.begin(Intent("resume", race=rid))
            m = app.model
            seat = seat_on_resume(m, rid)
            if seat == "playing":
                return True
            if seat == "over":
                over.append(rid)
            app.races_left.add(rid)
            app.model = RaceModel(me=m.me)
        if over:
            app.notify(
                f"Your game in race {', '.join(over)} is over; the race goes on for the others "
                "and its ranking will be under 'Your races'.",
                timeout=10,
            )
        return False

    async def choose(self, left: RaceModel | None = None) -> Intent | None:
        """The menu's choice, or None when Esc went back to the race it was opened from
        (``left``, whose rival's rematch offer it shows). The race screen shows dimmed around
        the menu: its command line and help (ready, start, leave…) have nothing to act on
        until a race is chosen."""
        app = self.app
        self.refused = None
        app.say("")
        app.redraw()  # "choose a game…" where the board goes, the connection in the header
        app.show_command_line(False)
        self.left = left
        self.menu = MenuScreen(
            app.model.game or app.default_game,
            app.default_seats,
            app.session,
            app.server_url,
            left.race_id if left is not None else None,
            offer_for(left, app.rematch_offer) if left is not None else None,
            declined=self.rematch_declined,
        )
        try:
            intent = await app.push_screen_wait(self.menu)
        finally:
            self.menu = self.left = None
        app.show_command_line(True)
        return intent

    def rematch_offered(self, ev: dict[str, Any]) -> None:
        """A rival asked for a rematch: said on the status line for the race on screen, on
        the menu for the race it was opened from, and kept for `accept` (the race comes back
        on screen with Esc); an offer for any other race is left."""
        app = self.app
        place = offer_place(ev, app.model, self.left, app.back_to)
        if not place:
            return
        app.rematch_offer = ev
        if place == "menu" and self.menu is not None:
            self.menu.show_rematch_offer(ev)
            return
        app.say(rematch_offer_text(ev))
        app.redraw()

    def rematch_declined(self, offer: dict[str, Any]) -> None:
        """The menu's "No thanks": the offer is forgotten, so that `accept` back in the race
        does not take it either (the server has no decline: the rival is not told); a new
        offer shows again."""
        if self.app.rematch_offer == offer:
            self.app.rematch_offer = None

    def to_menu(self) -> None:
        """The `menu` command: choose the next race once the player's own game is over (the
        race may go on for the others), or leave the quick-match queue for it."""
        app = self.app
        m = app.model
        if app.back_to:
            app.say(
                f"no menu here: ctrl+q goes {app.back_to}"
                + (" (your game and its clock go on meanwhile)" if m.my_status == "playing" else "")
            )
        elif app.session is None:
            app.say("not connected: nothing to choose from (ctrl+q to quit)", error=True)
        elif m.status == "queued":
            self.leave_queue()
        elif refusal := menu_refusal(m, app.daily_race):
            app.say(refusal, error=True)
        else:
            if m.status == "running" and m.race_id:
                # Offline races are kept nowhere: the menu there has no "Your races".
                where = "its ranking will be under 'Your races'" if app.online else "it is not kept offline"
                app.notify(f"Race {m.race_id} goes on without you: {where}.", timeout=8)
            self.back_to_menu()

    def leave_queue(self) -> Worker[None]:
        """Leave the quick-match queue (`menu` or `leave` while waiting), then the menu."""
        return self.app.run_worker(self._leave_queue, "leave_queue", "menu")

    async def _leave_queue(self) -> None:
        app = self.app
        m = app.model
        try:
            await app.request("unqueue", game=m.game)  # while the connection is lost: not sent
        except ServerError as e:
            app.say(e.describe(), error=True)
            return
        if app.model is not m or m.status != "queued":
            # Seated while the unqueue was on its way: the race was found first.
            app.say("rivals were found before you left the queue: this is your race", error=True)
            return
        self.back_to_menu()

    def back_to_menu(self) -> Worker[None]:
        """Put the race behind and open the menu; Esc there goes back to the race."""
        return self.app.run_worker(self._back_to_menu, "back_to_menu", "menu")

    def _put_race_behind(self) -> RaceModel:
        """The race on screen put behind (its late events must not bring it back), an empty
        model of the same player and game in its place: the race's model."""
        app = self.app
        m = app.model
        if m.race_id:
            app.races_left.add(m.race_id)
        app.model = RaceModel(me=m.me, game=m.game)
        app.selected = None
        app.moves_sent.clear()
        return m

    async def _back_to_menu(self) -> None:
        app = self.app
        m = self._put_race_behind()
        intent = await self.choose(m)
        if intent is None:
            self.back_to_race(m)
            return
        app.model.game = None
        app.rematch_offer = None  # the race it was for is behind for good
        await self.begin(intent)

    def after_leave(self) -> Worker[None]:
        """`leave` gave up the seat: the race put behind for good and the menu opened (the
        lobby stayed on screen, "seats 0/2", offering ready and start to a player with no
        seat), as the browser goes back home. No Esc back to it: that race is not yours."""
        return self.app.run_worker(self._after_leave, "after_leave", "menu")

    async def _after_leave(self) -> None:
        app = self.app
        m = self._put_race_behind()
        if m.race_id:
            app.notify(f"You left race {m.race_id}.", timeout=5)
        intent = None
        while intent is None:
            intent = await self.choose()
        app.model.game = None
        await self.begin(intent)

    def back_to_race(self, m: RaceModel) -> None:
        """Esc on the menu: the race the `menu` command left, shown again; its events
        count again, and a resync brings what came while the menu was open."""
        app = self.app
        assert m.race_id is not None
        app.races_left.discard(m.race_id)
        app.model = m
        app.say(f"back in race {m.race_id} — " + next_text(app.back_to, app.rematch_word()))
        app.redraw()
        app.resync()

    def ask_rematch(self) -> None:
        """`rematch`: the same players again in a new race, this one's settings (ready at
        once, as the browser's Rematch button); refused, said why."""
        app = self.app
        refusal = rematch_refusal(app.model, app.daily_race, app.back_to, app.online)
        if refusal:
            app.say(refusal, error=True)
            return
        self.play_again(Intent("rematch", race=app.model.race_id))

    def accept_rematch(self) -> None:
        """`accept`: a rival's rematch offer for this race taken (its seat, with its invite,
        then ready: the browser's takeRematch)."""
        app = self.app
        offer = offer_for(app.model, app.rematch_offer)
        if offer is None or app.back_to:
            app.say("no rematch is offered for this race", error=True)
            return
        self.play_again(Intent("accept", race=offer.get("rematch"), invite=offer.get("invite")))

    def play_again(self, intent: Intent) -> Worker[None]:
        """A rematch of the finished race on screen, asked for or accepted (``intent``): on
        to its lobby, ready at once (as the browser's Rematch and Accept buttons), or,
        refused, the finished race stays with the server's reason. Once seated the screen
        follows the seat even if the `ready` fails (said: 'ready' again)."""

        async def play_again() -> None:
            await self._play_again(intent)

        return self.app.run_worker(play_again, "play_again", "menu", exclusive=True)

    async def _play_again(self, intent: Intent) -> str | None:
        """The rematch ``intent`` played; refused, the reason said and returned."""
        app = self.app
        s, old = app.player_session(), app.model  # while the connection is lost: not sent
        assert s is not None
        try:
            reply = await start(s, intent)
        except ServerError as e:
            refused = start_refused_text(e, intent)
            app.say(refused, error=True)
            return refused
        if old.race_id and old.race_id != reply.get("race"):
            # Its late events must not bring it back. From the menu, `old` is the menu's empty
            # model, which an event of the rematch itself may have reached before this reply
            # (the join's published copy): that race is the one ahead, not behind.
            app.races_left.add(old.race_id)
        app.model = RaceModel(me=old.me)
        app.selected = None
        app.moves_sent.clear()
        app.rematch_offer = None
        app.model.apply(reply)
        try:
            reply = await s.request("ready", race=app.model.race_id, ready=True)
        except ServerError as e:
            app.say(rematch_not_ready_text(e, app.model.race_id or ""), error=True)
        else:
            app.model.apply(reply)
            app.say(started_text(intent, reply, app.online))
        app.redraw()
        return None

    async def begin(self, intent: Intent) -> None:
        """Start (create, join, queue for, resume…) the race ``intent`` asks for; a rematch
        (the menu's Accept, `--rematch`) as the `rematch` and `accept` commands: ready at once."""
        app = self.app
        s = app.session
        assert s is not None
        if intent.mode in ("rematch", "accept"):
            # Refused, no race is on screen (`--rematch` at launch): the board, the help and
            # the command line say what to do, as for a refused join (they said "connecting…").
            self.refused = await self._play_again(intent)
            app.redraw()
            return
        if intent.mode in ("quick", "daily"):
            app.model.game = intent.game
        try:
            reply = await start(s, intent, left=app.races_left.add)
        except ServerError as e:
            # No race on screen: the board, the help and the command line say what to do.
            self.refused = start_refused_text(e, intent, app.back_to)
            app.say(self.refused, error=True)
            app.redraw()
            return
        self.refused = None
        if app.back_to and intent.mode == "resume":  # played for another app: not "back in"
            app.say(f"race {intent.race} — ctrl+q goes {app.back_to}")
        else:
            app.say(started_text(intent, reply, app.online))
        app.model.apply(reply)
        if intent.mode == "daily" or app.model.daily:  # resumed from "Your races" or a relaunch too
            app.daily_race = app.model.race_id
        if intent.mode == "daily" and app.model.status == "running":
            app.resync()  # a resumed attempt: its board
        if intent.mode == "resume" and app.model.me not in app.model.players:
            # `--race` names a race this identity holds no seat in: it is shown, not played.
            app.say(
                f"you hold no seat in race {intent.race}: to take one, solrace play --join {intent.race}",
                error=True,
            )
        app.redraw()

    async def close(self) -> None:
        """On quit: leave the quick-match queue rather than be seated in absence, then close
        the session."""
        app = self.app
        if app.session is None:
            return
        if app.model.status == "queued" and app.model.game:
            try:
                async with asyncio.timeout(2):
                    await app.session.request("unqueue", game=app.model.game)
            except (TimeoutError, ServerError):
                pass
        await app.session.close()
