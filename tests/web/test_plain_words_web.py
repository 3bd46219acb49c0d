"""What the browser client says to players names a deal's sha256 its *fingerprint*, as the
terminal client does (tests/tui/test_plain_words.py): "commitment" is the wire field's name
(docs/protocol.md), a cryptographer's word that players read on the result, replay and daily
pages ("Commitment 3f9a…", "matches the race's commitment")."""

from __future__ import annotations

import re
from pathlib import Path

JS = Path(__file__).resolve().parents[2] / "client/web/static/js"

# a comment or a string literal, whichever starts first (a "//" inside a string is text)
TOKEN = re.compile(
    r"(?P<comment>//[^\n]*|/\*.*?\*/)"
    r'|(?P<text>"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|`(?:[^`\\]|\\.)*`)',
    re.S,
)
CODE_IN_TEMPLATE = re.compile(r"\$\{[^}]*\}")  # a template's ${…} parts are code, not text


def shown_texts(source: str) -> list[str]:
    """The string literals of a module, without its comments and its templates' code."""
    return [CODE_IN_TEMPLATE.sub("", m["text"]) for m in TOKEN.finditer(source) if m["text"]]


def test_the_reader_finds_the_text_and_skips_code() -> None:
    source = 'x(race.commitment); // the commitment\nh("a", {href: "https://x//y"}, "Commitment"), `${a.commitment} ok`'
    assert shown_texts(source) == ['"a"', '"https://x//y"', '"Commitment"', "` ok`"]


def test_no_text_the_client_shows_says_commitment() -> None:
    said = {
        f.name: [t for t in shown_texts(f.read_text()) if "commitment" in t.lower()]
        for f in sorted(JS.glob("*.js"))
    }
    assert {name: texts for name, texts in said.items() if texts} == {}
