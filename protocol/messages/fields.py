"""The constrained field types of client messages (docs/protocol.md §1): sizes and ranges as `msgspec.Meta`.

Decoding a client message into its Struct checks them, so a value outside
them is refused `bad-message` before any handler sees it.
"""

from __future__ import annotations

from typing import Annotated

import msgspec

from .constants import (
    MAX_COUNT,
    MAX_ID_LEN,
    MAX_MOVE_LEN,
    MAX_NAME,
    MAX_RID,
    MAX_SEATS,
    MAX_TIME_LIMIT_S,
    MAX_TOKEN_LEN,
    MIN_QUICK_SEATS,
    MIN_SEATS,
    MIN_TIME_LIMIT_S,
)

Rid = Annotated[int, msgspec.Meta(ge=0, le=MAX_RID)]
Count = Annotated[int, msgspec.Meta(ge=0, le=MAX_COUNT)]
RaceId = Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_ID_LEN)]
GameId = Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_ID_LEN)]
MoveText = Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_MOVE_LEN)]
Token = Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_TOKEN_LEN)]
Invite = Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_ID_LEN)]
# Unicode's Default_Ignorable_Code_Point characters (DerivedCoreProperties), as a regex class
# body: drawn as nothing (a soft hyphen, a variation selector, the Hangul fillers), so a name
# holding one looks like the name without it. Names are compared without them (core/lookalikes).
INVISIBLE = (
    "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8\U0001bca0-\U0001bca3"
    "\U0001d173-\U0001d17a\U000e0000-\U000e0fff"
)
# Printable: no control or invisible format characters (C0, DEL, C1, zero-width, bidi
# controls: embeddings, overrides, isolates and the Arabic letter mark, which reorder what
# follows the name on a rival's screen; BOM, line separators), no leading/trailing
# whitespace, and at least one character that is drawn. `\Z`, not `$`: msgspec searches, and
# `$` also matches before a final newline.
NAME_PATTERN = (
    r"^(?!\s)(?=.*[^\s" + INVISIBLE + r"])[^\x00-\x1f\x7f-\x9f\u061c\u2028\u2029\u200b-\u200f"
    r"\u202a-\u202e\u2060-\u206f\ufeff]+(?<!\s)\Z"
)
Name = Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_NAME, pattern=NAME_PATTERN)]
Seats = Annotated[int, msgspec.Meta(ge=MIN_SEATS, le=MAX_SEATS)]
QuickSeats = Annotated[int, msgspec.Meta(ge=MIN_QUICK_SEATS, le=MAX_SEATS)]
TimeLimit = Annotated[int, msgspec.Meta(ge=MIN_TIME_LIMIT_S, le=MAX_TIME_LIMIT_S)]
