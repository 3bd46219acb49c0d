"""The limits have one set of names and defaults: the server's settings, the
protocol's `DEFAULT_LIMITS` (what a client assumes before `welcome`) and the
table of docs/protocol.md §7 list the same ones."""

from __future__ import annotations

import re
from pathlib import Path

from protocol.messages import DEFAULT_LIMITS
from server.config import Settings

PROTOCOL_DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"


def documented_limits() -> set[str]:
    text = PROTOCOL_DOC.read_text()
    section = text.split("## 7. Limits", 1)[1].split("\n## ", 1)[0]
    names: set[str] = set()
    for row in section.splitlines():
        if row.startswith("| `"):
            names.update(re.findall(r"`([A-Z_]+)`", row.split("|")[1]))
    return names


def test_the_protocol_defaults_are_the_servers() -> None:
    assert Settings().limits() == DEFAULT_LIMITS


def test_every_limit_is_documented() -> None:
    assert documented_limits() == set(DEFAULT_LIMITS)
