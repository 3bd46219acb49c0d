"""docs/protocol.md agrees with protocol/messages: a client built from the doc alone
speaks the same message types. (Error codes: tests/client/test_codec.py; the limits
table of §7: tests/server/test_server_limits_doc.py.)"""

from __future__ import annotations

import re
from pathlib import Path

from protocol import messages as m

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "protocol.md").read_text()


def _table_after(text: str, marker: str) -> list[list[str]]:
    """The rows (cells stripped) of the first Markdown table after `marker`."""
    rest = text.split(marker, 1)[1]
    rows: list[list[str]] = []
    for line in rest.splitlines():
        line = line.strip()
        if not line.startswith("|"):
            if rows:
                break
            continue
        cells = [c.strip() for c in line.strip("|").split("|")]
        if set("".join(cells)) <= set("-: "):
            continue  # the separator row
        rows.append(cells)
    return rows[1:]  # without the header


def _tags(cell: str) -> set[str]:
    return set(re.findall(r"`([a-z_]+)`", cell))


GLANCE = DOC.split("### Messages at a glance", 1)[1].split("\n## ", 1)[0]
CLIENT_ROWS = _table_after(GLANCE, "Client → server")
SERVER_ROWS = _table_after(GLANCE, "Server → client")
CLIENT_TAGS = {str(cls.__struct_config__.tag) for cls in m.CLIENT_TYPES}
SERVER_TAGS = {str(cls.__struct_config__.tag) for cls in m.SERVER_TYPES}


def test_client_message_types_match_protocol_md() -> None:
    documented = [row[0].strip("`") for row in CLIENT_ROWS]
    assert len(documented) == len(set(documented))
    assert set(documented) == CLIENT_TAGS


def test_server_message_types_match_protocol_md() -> None:
    documented = [row[0].strip("`") for row in SERVER_ROWS]
    assert len(documented) == len(set(documented))
    assert set(documented) == SERVER_TAGS


def test_documented_replies_are_server_messages() -> None:
    for row in CLIENT_ROWS:
        assert _tags(row[1]) and _tags(row[1]) <= SERVER_TAGS, row


def test_every_message_type_is_described_in_the_text() -> None:
    """Each tag has a place of its own outside the index: a heading that names it, or its
    name in bold where a section describes it (a tag that is also a field name, `race` or
    `hint`, would otherwise pass on any mention)."""
    body = DOC.replace(GLANCE, "")
    for tag in CLIENT_TAGS | SERVER_TAGS:
        heading = re.search(rf"(?m)^#+ .*`{re.escape(tag)}`", body)
        assert heading or f"**`{tag}`**" in body, f"docs/protocol.md has no heading or bold `{tag}`"


def test_the_illegal_move_reasons_are_listed_in_full() -> None:
    from protocol.rules.errors import ILLEGAL_MOVE_CODES

    move = DOC.split("### `move`", 1)[1].split("\n### ", 1)[0]
    rows = _table_after(move, "`illegal-move` with `reason`")
    assert [row[0].strip("`") for row in rows] == list(ILLEGAL_MOVE_CODES)
    assert "…" not in move.split("`illegal-move` with `reason`", 1)[1].split("Other errors", 1)[0]
