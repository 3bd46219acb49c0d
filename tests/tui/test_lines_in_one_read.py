"""Several lines reaching the command line in one terminal read are each a command of their
own, in order: typed fast (or through a pipe) and pasted (a bracketed paste).

They are fed through textual's own terminal parser to the driver, as its input thread does
with what one read of the terminal returned. Typed fast, Enter acted only once its key had
bubbled up to the app, after the keys of the next line had gone in: the lines ran as one
command ("helpruleshelp"). Pasted, textual's Input kept the first line of a paste and dropped
the others.
"""

from __future__ import annotations

from textual._xterm_parser import XTermParser

from client.tui.command_line import MoveInput
from client.tui.play_app import PlayApp

from .helpers import offline_play, race_started, until


def one_read(app: PlayApp, data: str) -> None:
    """``data`` as one read of the terminal: parsed, and every event sent at once."""
    driver = app._driver
    assert driver is not None
    for event in XTermParser(False).feed(data):
        driver.process_message(event)


def recording(app: PlayApp) -> list[str]:
    """The lines the command line runs, from now on (each still run)."""
    ran: list[str] = []
    run = app.command_line.run

    def record(text: str) -> None:
        ran.append(text)
        run(text)

    app.command_line.run = record  # type: ignore[method-assign]
    return ran


async def test_lines_typed_in_one_read_are_commands_each() -> None:
    app, _session = offline_play()
    async with app.run_test(size=(80, 24)) as pilot:
        await race_started(pilot)
        ran = recording(app)
        # A Backspace in there too: a key bound on the command line acts where it was typed.
        one_read(app, "help\rrules\rhelq\x7fp\r")
        await until(pilot, lambda: len(ran) >= 3, what="three commands run")
        await pilot.pause()
        assert ran == ["help", "rules", "help"]
        assert app.query_one("#cmd", MoveInput).value == ""


async def test_a_paste_of_lines_runs_each_line_and_keeps_the_last_unfinished_one() -> None:
    app, _session = offline_play()
    async with app.run_test(size=(80, 24)) as pilot:
        await race_started(pilot)
        ran = recording(app)
        cmd = app.query_one("#cmd", MoveInput)
        await pilot.press("h")  # typed before the paste: the paste goes on from it
        one_read(app, "\x1b[200~elp\nrules\r\nhel\x1b[201~")
        await until(pilot, lambda: len(ran) >= 2, what="two commands run")
        await until(pilot, lambda: cmd.value == "hel", what="the last line typed")
        assert ran == ["help", "rules"]
        # Its line break not pasted: the last line waits for Enter, as a shell's prompt does.
        await pilot.press("p", "enter")
        await until(pilot, lambda: len(ran) == 3, what="the last line run")
        assert ran == ["help", "rules", "help"] and cmd.value == ""
