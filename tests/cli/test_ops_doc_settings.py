"""docs/operations.md §3 against the settings (server/config/settings.py): one row per setting,
with its flag, its SOLRACE_* variable, its default and its protocol name, and no row for a
setting that does not exist; every SOLRACE_* variable the operator's documents name exists.
(docs/protocol.md §7's limits are checked against the settings by tests/server.)"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from server.config import Settings
from server.logs import FORMAT_ENV, LEVEL_ENV

ROOT = Path(__file__).resolve().parents[2]
OPERATIONS = ROOT / "docs" / "operations.md"

#: The §3 table says in words what these string defaults mean.
DEFAULT_IN_WORDS = {
    "redis": "(empty)",
    "static": "(empty: the installed package's client/web/static)",
    "trusted_proxies": "(none)",
    "allowed_origins": "(none)",
    "daily_secret": "(generated once, kept in Redis)",
    "arena_schedule": "(hourly 30 min per game, a daily hour)",
}


def table() -> dict[str, list[str]]:
    """The rows of §3's settings table: flag -> [variable, default, protocol name, meaning]."""
    rows: dict[str, list[str]] = {}
    for line in OPERATIONS.read_text().splitlines():
        if not line.startswith("| `--"):
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) != 5:
            continue  # §4's table of limits
        flag = cells[0].strip("`")
        assert flag not in rows, f"{flag} has two rows"
        rows[flag] = [cells[1].strip("`"), *cells[2:]]
    return rows


def test_the_settings_table_has_one_row_per_setting_with_its_variable_default_and_limit() -> None:
    rows = table()
    for f in dataclasses.fields(Settings):
        flag = "--" + f.name.replace("_", "-")
        assert flag in rows, f"docs/operations.md §3 has no row for {flag}"
        variable, default, limit, meaning = rows.pop(flag)
        assert variable == f"SOLRACE_{f.name.upper()}", flag
        assert limit == (f.metadata.get("limit") or ""), flag
        assert meaning, flag
        if f.name in DEFAULT_IN_WORDS:
            assert default == DEFAULT_IN_WORDS[f.name], flag
        else:
            # A number, as --help prints it or its integer for a float (5 for 5.0), then words.
            shown = default.split(" ")[0]
            assert shown in (str(f.default), f"{f.default:g}" if isinstance(f.default, float) else ""), (
                f"{flag}: the doc says {default!r}, the code {f.default!r}"
            )
    assert not rows, f"rows for settings that do not exist: {sorted(rows)}"


def test_every_documented_solrace_variable_exists() -> None:
    known = {f"SOLRACE_{f.name.upper()}" for f in dataclasses.fields(Settings)}
    known |= {LEVEL_ENV, FORMAT_ENV}  # the log's two: flags of serve and bots, not settings
    for doc in ("README.md", "docs/operations.md", "docs/bots.md", "docker-compose.yml"):
        named = set(re.findall(r"SOLRACE_[A-Z][A-Z0-9_]*", (ROOT / doc).read_text()))
        assert named <= known, f"{doc} names variables that do not exist: {sorted(named - known)}"
