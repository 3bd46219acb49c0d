"""The `solrace` command: one entry point, one module per subcommand.

Each subcommand module defines `add_arguments(parser)` and `run(args) -> int`.
Modules are imported lazily so that `solrace deal` does not pay for the server
and `solrace serve` does not pay for the terminal UI.

Failures a user causes or meets are one line on stderr, never a traceback:
a usage error, a bad flag or a value or combination of flags the command refuses
before it starts (argparse's usage line and message, or `solrace CMD: ...`,
exit 2; for a command logging JSON, one record), a system error such as a port
already in use (`solrace CMD: ...`, exit 1), Ctrl-C (exit 130). A server that
cannot be reached is exit 1 for `bot` (and `play --login` and the other account
steps); `play`, `watch` and `arena` say it in their app; `verify`, `analyze`
and `replay` exit 2 for it, as for any input they cannot read (InputError:
their exit 1 is only `verify`'s REFUTED). A closed output pipe (`solrace deal
... | head`) ends the command quietly with exit 141, as a process killed by
SIGPIPE, the shell's convention. Anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import argparse
import errno
import importlib
import os
import sys
from typing import NoReturn

#: The server a command talks to when no --url (nor a race's link) names one: `make run`'s.
DEFAULT_URL = "ws://127.0.0.1:8765/ws"


class InputError(Exception):
    """What a command was given cannot be used (a malformed replay document, a link with no
    race in it, a refused fetch, no server answering): one sentence for the user, no
    traceback. `verify`, `replay` and `analyze` raise it; each says it and exits 2."""


SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "deal": ("client.cli.deal", "deal a game from a seed and show it with its legal moves"),
    "serve": ("server.cli", "run a race server"),
    "play": ("client.cli.play", "play a race in the terminal"),
    "watch": ("client.cli.watch", "list live races and spectate one"),
    "arena": ("client.cli.arena", "list arenas, join one and follow its live standings"),
    "bot": ("client.cli.bot", "run bots against a server, or measure strategies offline"),
    "bots": ("client.cli.bots", "the bot worker: play the bots a server asks for (docs/operations.md)"),
    "bench": ("client.cli.bench", "load-test a server against an echo baseline"),
    "verify": ("client.cli.verify", "re-deal and re-play a finished race or daily"),
    "analyze": ("client.cli.analyze", "where each player of a finished race lost the win"),
    "replay": ("client.cli.replay", "view a finished race move by move in the terminal"),
}

#: The commands that can log JSON (`--log-format`, SOLRACE_LOG_FORMAT): their failures are records.
JSON_LOGGERS = ("serve", "bots")
#: Exit status of a command whose output pipe was closed (128 + SIGPIPE).
EXIT_BROKEN_PIPE = 141
EXIT_INTERRUPTED = 130


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(prog="solrace", description="solitaire race server and tools")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (_module, help_text) in SUBCOMMANDS.items():
        sub.add_parser(name, help=help_text, add_help=False)
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    if not argv or argv[0] in ("-h", "--help"):
        parser.print_help()
        return 0
    if argv[0] == "--version":
        from protocol.version import software_version  # read from the installed metadata: only when asked

        print(f"solrace {software_version()}")
        return 0
    if argv[0] not in SUBCOMMANDS:
        parser.error(f"unknown command {argv[0]!r}")
    name = argv[0]
    log_format = _log_format_flag(argv[1:])
    if log_format is not None:  # known before anything can fail: a Ctrl-C while importing too
        os.environ["SOLRACE_LOG_FORMAT"] = log_format
    try:
        module = importlib.import_module(SUBCOMMANDS[name][0])
        sub_parser = CommandParser(prog=f"solrace {name}", description=SUBCOMMANDS[name][1])
        module.add_arguments(sub_parser)
        args = sub_parser.parse_args(argv[1:])
        check = getattr(module, "check_arguments", None)  # usage errors argparse alone cannot see
        if check is not None:
            check(sub_parser, args)
        status = int(module.run(args) or 0)
        sys.stdout.flush()  # a closed pipe shows here, not in the interpreter's exit
        return status
    except BrokenPipeError:
        _quiet_stdout()
        return EXIT_BROKEN_PIPE
    except KeyboardInterrupt:
        say_failure(name, f"solrace {name}: interrupted")
        return EXIT_INTERRUPTED
    except OSError as e:
        say_failure(name, f"solrace {name}: {describe_os_error(e)}")
        return 1


class CommandParser(argparse.ArgumentParser):
    """A subcommand's parser: a usage error of a command that logs JSON is one JSON record (a
    log collector gets no usage text it cannot parse); else argparse's usage and message."""

    def error(self, message: str) -> NoReturn:
        name = self.prog.removeprefix("solrace ")
        if name in JSON_LOGGERS and _logs_json():
            say_failure(name, f"{self.prog}: {message} (see {self.prog} --help)")
            sys.exit(2)
        super().error(message)


def _log_format_flag(args: list[str]) -> str | None:
    """The value of the last `--log-format` (`--log-format X` or `--log-format=X`) among a
    command's arguments, lower-cased; None without one."""
    found = None
    for i, a in enumerate(args):
        if a == "--log-format" and i + 1 < len(args):
            found = args[i + 1].lower()
        elif a.startswith("--log-format="):
            found = a.split("=", 1)[1].lower()
    return found


def say_failure(name: str, line: str) -> None:
    """A command's one-line failure on stderr; a JSON record when the command logs JSON (`serve`
    and `bots` put their --log-format in the variable), so that a log collector gets no line it
    cannot parse."""
    if name in JSON_LOGGERS and _logs_json():
        from server.logs import error_record  # only these two commands: they import it anyway

        line = error_record(line)
    print(line, file=sys.stderr)


def _logs_json() -> bool:
    return os.environ.get("SOLRACE_LOG_FORMAT", "").lower() == "json"


def describe_os_error(e: OSError) -> str:
    """One line for a system error, with a hint for the usual ones."""
    text = str(e) or type(e).__name__
    if e.errno == errno.EADDRINUSE:
        return f"{text} (another process listens there: stop it, or pick another --port)"
    if e.errno == errno.EADDRNOTAVAIL:
        return f"{text} (no such address on this machine: check --host)"
    if e.errno == errno.EACCES and "bind" in text:
        return f"{text} (ports below 1024 need privileges: pick another --port)"
    return text


def _quiet_stdout() -> None:
    """After a broken pipe: point stdout at /dev/null, so that the interpreter's final
    flush does not raise (and print) the same error again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout already closed or not a file: nothing to flush
        pass


if __name__ == "__main__":
    sys.exit(main())
