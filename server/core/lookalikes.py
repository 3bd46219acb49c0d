"""Latin look-alikes: what a name reads as to someone who reads it as Latin (Unicode TR39).

A guest's display name may not pass for an account's, the server's or a bot's (core/hello.py).
NFKC already folds full-width and most mathematical letters, but not another alphabet's
letters drawn like Latin ones: Cyrillic "а" (U+0430) is drawn as "a", Greek "Ο" as "O",
Latin "ɑ" as "a". Unicode's confusables data (TR39's confusables.txt, as the
confusable-homoglyphs package ships it) gives each such character its prototype;
`latin_lookalike` puts in every character whose prototype is made of Latin letters, digits,
"_", "-" or spaces that prototype, and leaves every other character as it is. An ordinary
Cyrillic or Chinese name keeps the letters that look like nothing Latin, so it reads as no
Latin name. Invisible characters are dropped, as TR39's skeleton drops them: the format
characters (Unicode category Cf: a soft hyphen, a zero-width space) and the rest of Unicode's
default-ignorable ones (a combining grapheme joiner, a variation selector, a Hangul filler),
which NFKC keeps.

ASCII itself is never mapped: TR39 also gives "m" the prototype "rn" and "1" the prototype
"l", which would make names that differ on screen compare equal.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable, Mapping
from importlib import resources

from protocol.messages.fields import INVISIBLE

#: A prototype a character may be replaced by: Latin letters, digits and what names join them with.
_LATIN = re.compile(r"[A-Za-z0-9_ -]+")
_INVISIBLE = re.compile(f"[{INVISIBLE}]")


def latin_table(data: Mapping[str, Iterable[Mapping[str, str]]]) -> dict[int, str]:
    """Each non-ASCII character whose prototype is Latin, to that prototype (a `str.translate`
    table). The package lists both directions of each confusables.txt line under each of its
    sides; no ASCII letter or digit has a non-ASCII prototype, so the one Latin entry listed
    under a non-ASCII character is its own prototype."""
    table: dict[int, str] = {}
    for char, glyphs in data.items():
        if len(char) != 1 or char.isascii():
            continue
        latin = [g["c"] for g in glyphs if _LATIN.fullmatch(g["c"])]
        if latin:
            table[ord(char)] = latin[0]
    return table


#: Read once, when the server starts (about 0.1 s). The package's data file is read here, not
#: through its `confusables` module, which would keep all of it (~10 MB per process) for good
#: (only the table, 1,440 characters, stays), nor through its loader, which an environment
#: variable (CONFUSABLE_DATA) would send to another folder.
_TABLE = latin_table(
    json.loads(resources.files("confusable_homoglyphs").joinpath("confusables.json").read_text("utf-8"))
)


def latin_lookalike(text: str) -> str:
    """`text` with each character that looks like Latin letters or digits replaced by them and
    the invisible characters (Unicode category Cf and the other default-ignorable ones) dropped."""
    shown = "".join(c for c in _INVISIBLE.sub("", text) if c.isascii() or unicodedata.category(c) != "Cf")
    return shown.translate(_TABLE)
