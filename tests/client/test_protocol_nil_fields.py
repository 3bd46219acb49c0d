"""docs/protocol.md §1: "The server omits optional fields that hold their default (...);
fields typed "int or nil" are always present." Checked against the doc itself: every
field the doc types nil is sent as nil, and every field the server may leave out is one
the doc calls optional or absent (with the words that say so)."""

from __future__ import annotations

import re
import types
import typing
from pathlib import Path

import msgspec
import pytest

from protocol import messages as m

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "protocol.md").read_text()
FLAT = " ".join(DOC.split())  # the doc with its line breaks folded, to find phrases


def _structs() -> list[type[msgspec.Struct]]:
    """Every struct a server message holds, nested ones included."""
    seen: list[type[msgspec.Struct]] = []
    todo: list[object] = list(m.SERVER_TYPES)
    while todo:
        t = todo.pop()
        if isinstance(t, type) and issubclass(t, msgspec.Struct):
            if t in seen:
                continue
            seen.append(t)
            todo += [f.type for f in msgspec.structs.fields(t)]
        else:
            todo += typing.get_args(t)
    return seen


STRUCTS = _structs()


def _nil_able(tp: object) -> bool:
    return type(None) in typing.get_args(tp) if isinstance(tp, types.UnionType) else tp is type(None)


def _omittable(cls: type[msgspec.Struct], field: msgspec.structs.FieldInfo) -> bool:
    """Whether the encoder may leave the field out (it holds its default)."""
    return not field.required and bool(cls.__struct_config__.omit_defaults)


def _parenthetical(text: str, start: int) -> str:
    """The text of the parenthesis that opens at `start` (nesting allowed)."""
    depth = 0
    for i in range(start, len(text)):
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        if depth == 0:
            return text[start + 1 : i]
    return text[start + 1 :]


def documented_nil_fields() -> set[str]:
    """Names the doc types as possibly nil: a table row typed "... or nil", or a field
    described in parentheses as nil in some case ("`time_ms` (..., nil for a timeout)")
    and not as absent."""
    names = set()
    for row in re.finditer(r"^\| `(\w+)` \| ([^|]*) \|", DOC, re.M):
        if "or nil" in row.group(2):
            names.add(row.group(1))
    for hit in re.finditer(r"`(\w+)` \(", FLAT):
        inside = _parenthetical(FLAT, hit.end() - 1)
        if re.search(r"\bnil\b", inside) and "absent" not in inside:
            names.add(hit.group(1))
    return names


def test_the_doc_parser_finds_the_nil_fields() -> None:
    """The parser below sees the fields it must (a regression guard for the parser itself)."""
    found = documented_nil_fields()
    assert {"starts_at", "deadline", "seed", "ranking", "at", "time_ms", "last_move_ms"} <= found
    assert {"move", "last_winnable", "first_lost", "losing_move", "you", "me", "featured"} <= found
    assert not {"rid", "invite", "berserk", "proof", "arenas", "events"} & found


# A field the doc types nil under one name in one message, and calls absent in another.
ABSENT_THERE = {
    ("State", "you"): "`home`, `status` (absent otherwise)",
    ("ReplayData", "starts_at"): "`starts_at` (optional: the race's start, which `ended_ms`",
}


@pytest.mark.parametrize("name", sorted(documented_nil_fields()))
def test_every_field_the_doc_types_nil_is_always_sent(name: str) -> None:
    """A field the doc types "or nil" has no default to omit: nil is sent as nil."""
    holders = [
        (cls, f)
        for cls in STRUCTS
        for f in msgspec.structs.fields(cls)
        if f.encode_name == name and _nil_able(f.type)
    ]
    assert holders, f"`{name}`: the doc types it nil but no server message holds it as nil-able"
    for cls, f in holders:
        if (cls.__name__, name) in ABSENT_THERE:
            assert ABSENT_THERE[(cls.__name__, name)] in FLAT
            continue
        assert not _omittable(cls, f), f"{cls.__name__}.{name} would be left out when nil"


# Every server field that may be left out, with the words of docs/protocol.md that say
# it may be absent (or, for `certified`, that the server always gives it a bool).
OPTIONAL = {
    "rid": "The server omits optional fields that hold their default (`rid`",
    "Ok.ver": "Reply `ok` with `ver`",
    "Error.field": "and extra fields named below",
    "Error.supported": "and extra fields named below",
    "Error.retry_ms": "and extra fields named below",
    "Error.n": "and extra fields named below",
    "Error.reason": "and extra fields named below",
    "RaceSnapshot.invite": "| `invite` | str, optional |",
    "RaceSnapshot.rated": "| `rated` | bool, optional |",
    "RaceSnapshot.daily": "| `daily` | bool, optional |",
    "RaceSnapshot.arena": "| `arena` | str, optional |",
    "RaceSnapshot.certified": "`false` for an ordinary deal",
    "PlayerInfo.berserk": "`berserk` (bool, optional, absent when false",
    "PlayerInfo.account": "absent when false: the seat was taken by an account",
    "SummaryPlayer.account": "`account` as in the player map",
    "SummaryPlayer.bot": "`bot`: a bot's seat",
    "DailyReplayPlayer.account": "`account` (optional, absent when false: as in the entries)",
    "DailyReplayPlayer.ended_ms": "`ended_ms` (optional: start → the end of the attempt's game",
    "RematchOffer.account": "`account` (bool, optional, absent when false: the player who",
    "Queued.rated": "and `rated: true` for the rated queue",
    "RaceSummary.rated": "`rated` (optional, true for a rated race",
    "Ack.dup": "`dup: false`",
    "Ack.view": "and, if asked, `view` (str) and `legal` (list of str)",
    "Ack.legal": "and, if asked, `view` (str) and `legal` (list of str)",
    "End.proof": "both are absent otherwise",
    "End.par": "both are absent otherwise",
    "ReplayData.proof": "A certified deal's reply also has `proof` and `par`",
    "ReplayData.par": "A certified deal's reply also has `proof` and `par`",
    "ReplayData.starts_at": "`starts_at` (optional: the race's start, which `ended_ms`",
    "State.you": "`home`, `status` (absent otherwise)",
    "State.events": "oldest first, or nil/absent",
    "DailyInfo.certified": "`certified` (bool: the day's deal was proved winnable",
    "DailyInfo.proof": "`proof` (list of str, only once closed and only for a certified day",
    "ProfileData.arenas": "`arenas` (optional, absent when none)",
    "RematchOffer.invite": "`invite` (the new race's invite if it is private",
    "ArenaRow.account": "`account` (bool, optional, absent when false",
    "RecentRace.arena": "`arena` (optional: the arena id, absent but for an arena race)",
    "RecentRace.date": "`date` (optional: a daily attempt's day",
    "RecentRace.private": "`private` (optional, absent when false",
    "RecentRace.before": "`before` and `after` (optional, absent until then",
    "RecentRace.after": "`before` and `after` (optional, absent until then",
    "ArenaListData.more": "`more` (bool, optional, absent when false) says some were left out",
}


def test_every_field_the_server_may_leave_out_is_documented_optional() -> None:
    omitted = {
        f.encode_name if f.encode_name == "rid" else f"{cls.__name__}.{f.encode_name}"
        for cls in STRUCTS
        for f in msgspec.structs.fields(cls)
        if _omittable(cls, f)
    }
    assert omitted <= set(OPTIONAL), (
        f"left out when default, not documented optional: {omitted - set(OPTIONAL)}"
    )
    for key, words in OPTIONAL.items():
        assert words in FLAT, (key, words)


def _row(**over: object) -> dict[str, object]:
    row: dict[str, object] = dict(
        rank=1, player="p1", name="ada", status="finished", won=False, home=4, moves=0, time_ms=10
    )
    return {**row, "home_at_ms": 0, **over}


def test_last_move_ms_nil_is_sent_in_every_result_row() -> None:
    """§3 `end`, `replay`; §5 leaderboard entries, `history` days: `last_move_ms` is nil with
    no move, and present as nil."""
    rank = m.RankEntry(**_row())  # type: ignore[arg-type]
    entry = m.DailyEntry(**_row(total=52, race="r1"))  # type: ignore[arg-type]
    day = m.HistoryDay(
        date="2025-03-14",
        status="finished",
        won=False,
        home=4,
        total=52,
        moves=0,
        time_ms=10,
        home_at_ms=0,
        race="r1",
        rank=1,
        count=1,
    )
    msgs: list[m.ServerMsg] = [
        m.End(race="r1", ver=3, seed="s", ranking=[rank]),
        m.ReplayData(
            race="r1",
            game="fours-up",
            rules_version=1,
            deal_version=1,
            seed="s",
            commitment="c" * 64,
            ranking=[rank],
            players=[],
        ),
        m.LeaderboardData(
            game="fours-up",
            date="2025-03-14",
            status="open",
            final=False,
            count=1,
            top=[entry],
            around=[entry],
            me=entry,
        ),
        m.LeaderboardUpdate(game="fours-up", date="2025-03-14", entry=entry, count=1),
        m.HistoryData(
            player="p1",
            game="fours-up",
            today="2025-03-14",
            played=1,
            wins=0,
            streak=1,
            best_streak=1,
            win_streak=0,
            best_win_streak=0,
            days=[day],
        ),
    ]
    for msg in msgs:
        raw = msgspec.msgpack.decode(m.encode(msg))
        rows = [
            *raw.get("ranking", []),
            *raw.get("top", []),
            *raw.get("around", []),
            *raw.get("days", []),
            *([raw["me"]] if raw.get("me") else []),
            *([raw["entry"]] if "entry" in raw else []),
        ]
        assert rows, raw
        for row in rows:
            assert "last_move_ms" in row and row["last_move_ms"] is None, (raw["t"], row)


def test_a_row_without_last_move_ms_still_decodes_as_nil() -> None:
    """A server (or a stored row) from before the field: absent decodes as nil."""
    frame = msgspec.msgpack.encode({"t": "end", "race": "r1", "ver": 3, "seed": None, "ranking": [_row()]})
    end = m.decode_server(frame)
    assert isinstance(end, m.End) and end.ranking[0].last_move_ms is None
