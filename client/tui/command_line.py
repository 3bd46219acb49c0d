"""The race screen's command line: its input, whose Tab completes a legal move, and what a
line typed there does (a move, a race command sent, a hint asked, the words of the way out
passed to ``menu_flow``).

The race screen (``play_app``) owns the widgets and the race's state; the command line acts
on them through :class:`CommandScreen`, and what it decides and says are plain functions
(``race_commands``)."""

from __future__ import annotations

import re
from collections.abc import Callable, Coroutine
from functools import partial
from typing import Any, Protocol

from textual import events
from textual.binding import Binding
from textual.widgets import Input
from textual.worker import Worker

from protocol.messages import MAX_MOVE_LEN

from .board_input import complete
from .errors import REPLY_LOST, ServerError
from .hints import ask_hint
from .menu_flow import MenuFlow
from .model import RaceModel
from .race_commands import (
    LOST_COMMAND,
    QUEUED_COMMAND,
    REFRESHED,
    connecting_help,
    finish_prompt,
    looks_like_a_move,
    no_race_text,
    not_now_text,
    rules_text,
    too_long_text,
    unknown_text,
)
from .race_text import connection_text, lobby_waits_text
from .session import Session


def move_typed(text: str) -> str:
    """The move ``text`` typed, in the notation's spelling: it has no capitals (docs/rules.md
    §1.3), and `DRAW` was taken but `T5>F12` refused. Only ASCII is lowered: no other letter is
    in a move, and one that lowers to ASCII (the Kelvin sign's k) must not make one."""
    return text.lower() if text.isascii() else text


class MoveInput(Input):
    """The command line. Tab completes a legal move (Tab again: the next one with the same
    prefix); bound here, not on the app, so that a Tab typed right after a letter is handled
    after that letter."""

    BINDINGS = [Binding("tab", "complete", "complete move", show=False)]

    def __init__(self, legal: Callable[[], list[str]], say: Callable[[str], None], **kw: Any) -> None:
        super().__init__(**kw)
        self.legal = legal
        self.say = say
        #: (the prefix typed, the last completion shown): Tab on that completion goes on
        self.completion: tuple[str, str] | None = None

    def action_complete(self) -> None:
        typed = self.value.strip()
        prefix, last = self.completion if self.completion and self.completion[1] == typed else (typed, None)
        nxt = complete(self.legal(), prefix, last)
        if nxt is None:
            self.say(f"no legal move starts with {prefix!r}" if prefix else "no legal moves")
            return
        self.completion = (prefix, nxt)
        self.value = nxt
        self.cursor_position = len(nxt)

    def clear(self) -> None:
        """Empty, once a line is sent: a completion is then over."""
        super().clear()
        self.completion = None

    async def _on_key(self, event: events.Key) -> None:
        """A key bound here (Enter, Tab, Backspace, the arrows…) acts here, in the order the
        keys came. Left to textual, its binding acted once the key had bubbled up to the
        app, after the keys that followed it in the same read of the terminal (typed fast, or
        through a pipe) had gone in: Enter sent two lines run together as one command."""
        for binding in self._bindings.key_to_bindings.get(event.key, ()):
            if not binding.priority and await self.app.run_action(binding.action, self):
                self._restart_blink()  # as textual's Input._on_key, which is not reached
                event.stop()
                event.prevent_default()  # not typed too (textual's Input._on_key)
                return

    async def action_submit(self) -> None:
        """Enter: the line is taken out of the input at once, not when the app runs it: the
        keys after Enter that are in by then start the next line (they were cleared with it)."""
        self.submit_line()

    def submit_line(self) -> None:
        line = self.value
        self.clear()
        self.post_message(self.Submitted(self, line))

    def _on_paste(self, event: events.Paste) -> None:
        """A paste of several lines: each line it ends is a command, in order, as if typed
        with its Enter; what follows its last line break stays typed, for Enter (a shell's
        prompt does the same). Textual's input kept the first line of a paste only."""
        *whole, rest = re.split(r"\r\n|\r|\n", event.text)
        for line in whole:
            super()._on_paste(events.Paste(line))  # at the cursor, over a selection
            self.submit_line()
        super()._on_paste(events.Paste(rest))
        event.prevent_default()  # else textual's own handler pastes the first line again
        event.stop()


class CommandScreen(Protocol):
    """What the command line uses of the play app: the race's state, the status line, the
    moves sent, the way out (``menu_flow``) and textual's workers."""

    session: Session | None
    model: RaceModel
    selected: tuple[str, int] | None
    server_url: str | None
    back_to: str | None
    connect_failed: bool
    daily_race: str | None
    #: the race whose `finish` waits for its confirmation (a second `finish`)
    finish_armed: str | None
    menu_flow: MenuFlow

    def help_text(self) -> str: ...
    async def request(self, t: str, **fields: Any) -> dict[str, Any]: ...
    def player_session(self) -> Session | None: ...
    def toggle_legal(self) -> None: ...
    def connect_again(self) -> None: ...
    def say(self, text: str, error: bool = False) -> None: ...
    def say_lost(self, text: str) -> None: ...
    def redraw(self) -> None: ...
    def push_screen(self, screen: Any) -> Any: ...
    def resync(self, said: str | None = None) -> Worker[None]: ...
    def send_move(self, move: str) -> Worker[None]: ...
    def exit(self, result: int | None = None) -> None: ...
    def run_worker(
        self,
        work: Callable[[], Coroutine[Any, Any, None]],
        name: str | None = "",
        group: str = "default",
        *,
        exclusive: bool = False,
    ) -> Worker[None]: ...


class CommandLine:
    """What a line typed on ``app``'s command line does."""

    def __init__(self, app: CommandScreen):
        self.app = app

    def run(self, text: str) -> None:
        app = self.app
        word = text.lower()
        m = app.model
        armed, app.finish_armed = app.finish_armed, None  # a confirmation is the very next command
        prompt = finish_prompt(m, app.daily_race) if word == "finish" and armed != m.race_id else None
        if prompt:
            app.finish_armed = m.race_id
            app.say(prompt)
            return
        if word in ("quit", "exit", "q"):
            app.exit(0)
        elif app.session is None and app.connect_failed and word == "retry":
            app.connect_again()
        elif app.session is None:  # still connecting (or failed to): nothing acts yet
            failed = app.connect_failed
            app.say(connecting_help(connection_text(None, app.server_url, failed), failed), error=failed)
        elif word in ("help", "?"):
            app.say(app.help_text())
        elif word == "rules":
            app.say(rules_text(m.game))
        elif word in ("ready", "unready", "start", "leave", "finish", "refresh", "resync"):
            self.race_command(word)
        elif word == "hint":
            self.hint()
        elif word in ("analysis", "analyse", "analyze"):
            self.analysis()
        elif word == "legal":
            app.toggle_legal()
        elif word == "menu":
            app.menu_flow.to_menu()
        elif word == "rematch":
            app.menu_flow.ask_rematch()
        elif word == "accept":
            app.menu_flow.accept_rematch()
        elif m.status == "none":
            app.say(no_race_text(app.back_to), error=True)
        elif not looks_like_a_move(text):
            app.say(unknown_text(text, m.game), error=True)
        elif m.status != "running":
            app.say(not_now_text(m), error=True)
        elif len(text) > MAX_MOVE_LEN:  # the server's refusal named its message's field
            app.say(too_long_text(m.game), error=True)
        else:
            app.selected = None
            app.send_move("draw" if word in ("d", "draw") else move_typed(text))

    def race_command(self, word: str) -> Worker[None]:
        return self.app.run_worker(partial(self._race_command, word), "race_command", "commands")

    async def _race_command(self, word: str) -> None:
        app = self.app
        m = app.model
        s = app.session
        if s is not None and word == "leave" and m.status == "queued":
            app.menu_flow.leave_queue()
            return
        if m.status == "queued":
            app.say(QUEUED_COMMAND, error=True)
            return
        if s is None or not m.race_id:
            app.say(no_race_text(app.back_to), error=True)
            return
        if word in ("refresh", "resync"):  # `resync`: the protocol's word, still taken as typed
            app.resync(said=REFRESHED)
            return
        try:
            # Through the app: while the connection is lost, said not sent at once.
            if word in ("ready", "unready"):
                reply = await app.request("ready", race=m.race_id, ready=word == "ready")
            else:
                reply = await app.request(word, race=m.race_id)
            if word == "finish":
                app.say("you declared your game finished")
                m.declared_finished()
            elif word == "leave":
                app.say("you left the race")
                if not app.back_to:  # no seat, nothing of the lobby's acts: the menu
                    app.menu_flow.after_leave()
                    return
            m.apply(reply)
            if word in ("ready", "unready") and m.status == "lobby":
                # The line said when the race was created may be stale by now: what it waits for.
                app.say(f"{word}: ok — {lobby_waits_text(m)}")
            elif word not in ("finish", "leave"):
                app.say(f"{word}: ok")
        except ServerError as e:
            if e.code == REPLY_LOST:  # sent, then the connection dropped: done or not, unknown
                app.say_lost(f"{word}: {LOST_COMMAND}")
            else:
                app.say(e.describe(), error=True)
        app.redraw()

    def analysis(self) -> Worker[None]:
        return self.app.run_worker(self._analysis, "analysis", "commands")

    async def _analysis(self) -> None:
        from .analysis import not_over_text, show_analysis

        app = self.app
        m = app.model
        why = not_over_text(m)
        session = app.player_session()
        if why is not None or session is None or m.race_id is None:
            app.say(why or "analysis: no race on screen", error=True)
            return
        shown = "analysis: Esc closes it; 'analysis' shows it again"
        await show_analysis(app, session, m.race_id, m.game, app.say, shown=shown)

    def hint(self) -> Worker[None]:
        return self.app.run_worker(self._hint, "hint", "commands")

    async def _hint(self) -> None:
        session = self.app.player_session()
        if session is not None:
            self.app.say(await ask_hint(session, self.app.model, asking=self.app.say))
