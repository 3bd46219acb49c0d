"""The limits have one set of names and defaults: the server's settings, the
protocol's `DEFAULT_LIMITS` (what a client assumes before `welcome`) and the
table of docs/protocol.md §7 list the same ones."""

from __future__ import annotations

import re
from dataclasses import fields
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


def test_fractional_seconds_are_reported_rounded_up() -> None:
    """docs/protocol.md §2 `welcome`: `limits` holds ints; the limits an operator may give in
    fractions of a second are reported rounded up, and the doc names each of them."""
    fractional = {"HELLO_TIMEOUT": 2.5, "HINT_WAIT_S": 2.5, "ANALYSIS_WAIT_S": 0.2}
    limits = Settings(hello_timeout_s=2.5, hint_wait_s=2.5, analysis_wait_s=0.2).limits()
    assert {name: limits[name] for name in fractional} == {
        "HELLO_TIMEOUT": 3,
        "HINT_WAIT_S": 3,
        "ANALYSIS_WAIT_S": 1,
    }
    floats = {
        str(f.metadata["limit"])
        for f in fields(Settings)
        if f.metadata.get("limit") and f.type in (float, "float")
    }
    assert floats == set(fractional)
    welcome = PROTOCOL_DOC.read_text().split("Reply **`welcome`**", 1)[1].split("\n\n", 1)[0]
    assert all(f"`{name}`" in welcome.split("rounded up", 1)[0] for name in fractional)
