"""SIGTERM or SIGHUP to `solrace play` ends it as Ctrl+Q does (client/tui/run.py): the
terminal is given back (the alternate screen left, the cursor shown), then the process exits
with 128 + the signal. Killed outright it left the shell in raw mode on the alternate screen.
Run in a real pseudo-terminal."""

from __future__ import annotations

import os
import pty
import select
import signal
import subprocess
import sys
import time

import pytest
from waiting import DEADLINE

pytestmark = pytest.mark.timeout(120)

ALT_SCREEN_ON = b"\x1b[?1049h"
ALT_SCREEN_OFF = b"\x1b[?1049l"


def read_until(fd: int, proc: subprocess.Popen, want: bytes | None, seen: bytearray) -> None:
    """Read the terminal's output into `seen` until `want` is in it (None: until it closes)."""
    end = time.monotonic() + DEADLINE
    while want is None or want not in seen:
        assert time.monotonic() < end, f"waited for {want!r}; the terminal got {bytes(seen[-300:])!r}"
        ready, _, _ = select.select([fd], [], [], 0.2)
        if not ready:
            continue
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # EIO: the child closed the terminal
            chunk = b""
        if not chunk:
            assert want is None, f"the terminal closed before {want!r}: {bytes(seen[-300:])!r}"
            return
        seen += chunk


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_ends_play_and_gives_the_terminal_back(sig: int) -> None:
    main, child = pty.openpty()
    os.set_blocking(main, False)
    env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "80", "LINES": "24"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "client.cli", "play", "--offline", "--game", "fours-up"],
        stdin=child,
        stdout=child,
        stderr=child,
        env=env,
        start_new_session=True,
    )
    os.close(child)
    seen = bytearray()
    try:
        read_until(main, proc, ALT_SCREEN_ON, seen)
        proc.send_signal(sig)
        read_until(main, proc, None, seen)
        assert proc.wait(DEADLINE) == 128 + sig
        after = bytes(seen[seen.index(ALT_SCREEN_ON) :])
        assert ALT_SCREEN_OFF in after, after[-300:]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(main)
