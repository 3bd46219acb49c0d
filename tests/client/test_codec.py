"""protocol.messages: round trips, error codes for each bad-input class, fuzzing.

The fuzz tests hold `decode_client` to its contract: for *any* input it
returns a message or raises `ProtocolError` with one of the three decode
codes — never anything else — and whatever it accepts re-encodes to the
same message.
"""

from __future__ import annotations

import random
import timeit
from typing import Any

import msgspec
import pytest
from depth import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from protocol import messages as m

DECODE_CODES = {m.ErrorCode.BAD_FRAME, m.ErrorCode.BAD_MESSAGE, m.ErrorCode.UNKNOWN_TYPE}

# two rows of a ranking, one a line: ada won, bob ran out of time
RANK_FIELDS = ("rank", "player", "name", "status", "won", "home", "moves", "time_ms", "home_at_ms")
RANK, RANK2 = (
    m.RankEntry(**dict[str, Any](zip(RANK_FIELDS, row)))
    for row in [
        (1, "p1", "ada", "won", True, 156, 300, 61_000, 61_000),
        (2, "p2", "bob", "timeout", False, 40, 90, None, 20_000),
    ]
)
SNAP = m.RaceSnapshot(
    race="r1",
    ver=3,
    game="racing-aces",
    status="running",
    private=False,
    seats=2,
    time_limit_s=600,
    host="p1",
    created=1_700_000_000_000,
    starts_at=1_700_000_003_000,
    deadline=1_700_000_603_000,
    commitment="ab" * 32,
    seed=None,
    total=156,
    players=[m.PlayerInfo(player="p1", name="ada", ready=True, n=0, home=0, status="playing", at=None)],
    ranking=None,
)
PROGRESS = m.Progress(race="r1", ver=4, player="p2", n=1, home=1, total=156, status="playing", at=5)
END = m.End(race="r1", ver=9, seed="0f" * 16, ranking=[RANK, RANK2])

CLIENT_EXAMPLES: list[m.ClientMsg] = [
    m.Hello(v=1),
    m.Hello(v=1, token="tok", name="Ada Lovelace", rid=0),
    m.Ping(rid=2**31 - 1),
    m.Create(game="racing-aces"),
    m.Create(game="fours-up", seats=8, time_limit_s=30, private=True, rid=4),
    m.Join(race="r1"),
    m.Leave(race="r1", rid=1),
    m.Ready(race="r1"),
    m.Ready(race="r1", ready=False),
    m.Start(race="r1"),
    m.Quick(game="racing-aces"),
    m.Quick(game="racing-aces", seats=8),
    m.Unqueue(game="racing-aces"),
    m.Move(race="r1", n=0, move="draw"),
    m.Move(race="r1", n=41, move="t2:3>t5", view=True, rid=9),
    m.Finish(race="r1"),
    m.Resync(race="r1"),
    m.Resync(race="r1", since=12),
    m.Replay(race="r1"),
    m.Races(),
    m.Races(game="rouge-et-noir"),
    m.Hint(race="r1"),
    m.Analysis(race="r1"),
    m.Spectate(race="r1"),
    m.Unspectate(race="r1"),
    # daily challenges (docs/protocol.md §5)
    m.Daily(game="racing-aces"),
    m.Daily(game="racing-aces", date="2025-03-14", rid=1),
    m.DailyStart(game="fours-up"),
    m.Leaderboard(game="racing-aces"),
    m.Leaderboard(game="racing-aces", date="2025-03-14", top=100, around=0, watch=True),
    m.LeaderboardUnwatch(game="racing-aces"),
    m.History(game="racing-aces"),
    m.History(game="racing-aces", player="p1", days=0),
    m.DailyReplay(game="racing-aces", date="2025-03-14"),
    m.DailyReplay(game="racing-aces", date="2025-03-14", player="p1"),
    m.Arenas(rid=1),
    m.ArenaGet(arena="hourly-racing-aces-1"),
    m.ArenaJoin(arena="a-1", rid=2),
    m.ArenaWithdraw(arena="a-1"),
    m.ArenaStandings(arena="a-1", top=20, around=3, watch=True),
    m.ArenaUnwatch(arena="a-1"),
    m.ArenaBerserk(arena="a-1", race="r1", rid=3),
    m.ArenaCreate(arena="a-1", game="fours-up", duration_ms=60_000, starts=5, seats=3, time_limit_s=60),
    m.Claim(name="ada", password="correct horse"),
    m.Login(name="ada", password="correct horse", rid=4),
    m.Logout(),
    m.LogoutAll(rid=5),
    m.ChangePassword(old="correct horse", new="battery staple"),
    m.Profile(),
    m.Profile(player="p1"),
    m.Recent(),
    m.Recent(limit=50, rid=32),
    m.RatingBoard(game="racing-aces"),
    m.RatingBoard(game="racing-aces", top=20, around=3),
    m.Bot(race="r1", level="search", rid=30),
    m.Bot(race="r1"),
    m.Rematch(race="r1", rid=31),
]

# ada's won race (RANK) as the day's first entry of a daily leaderboard
DAILY_ENTRY = m.DailyEntry(**msgspec.structs.asdict(RANK), total=156, race="r1")


def _without(row: msgspec.Struct, *names: str) -> dict[str, Any]:
    """The fields of `row` but `names`, by name."""
    return {k: v for k, v in msgspec.structs.asdict(row).items() if k not in names}


RATING = m.RatingValue(rating=1000, mu=25.0, sigma=8.33, races=0, provisional=True)
RATED_RACE = m.RatedRace(
    race="r1", game="racing-aces", at=5, rank=1, players=2, weight=1.0, before=RATING, after=RATING
)
RATING_ENTRY = m.RatingEntry(rank=1, player="p1", name="ada", rating=1200, mu=30.0, sigma=2.0, races=12)
ARENA_SUMMARY = m.ArenaSummary(
    id="a-1",
    game="fours-up",
    name="a",
    starts=1,
    ends=2,
    seats=2,
    berserk=True,
    time_limit_s=300,
    status="running",
    final=False,
    players=3,
)
ARENA_ROW = m.ArenaRow(rank=1, player="p1", name="ada", points=4, races=2, wins=2, streak=2, fire=True)
STANDINGS = m.ArenaStandingsData(
    arena="a-1", status="running", final=False, count=1, top=[ARENA_ROW], me=None, around=[], featured=None
)
DAILY_OPEN = m.DailyInfo(
    game="racing-aces",
    date="2025-03-14",
    status="open",
    opens=1,
    closes=2,
    commitment="c",
    seed=None,
    time_limit_s=600,
    total=156,
    entries=0,
    final=False,
    rules_version=1,
    deal_version=1,
    you=None,
)


def _recent(race: str, **fields: Any) -> m.RecentRace:
    """A `recent_races` row: a won public race of Racing Aces (201 moves, 60 s, rated), but for
    the `fields` given."""
    won: dict[str, Any] = dict(
        game="racing-aces", kind="public", at=5, rank=1, players=2, status="won", home=156, total=156
    )
    return m.RecentRace(race=race, **(won | dict(moves=201, time_ms=60_000, rated=True) | fields))


SERVER_EXAMPLES: list[m.ServerMsg] = [
    m.Welcome(v=1, player="p1", name="ada", token="t", races=["r1"], time=1, limits=dict(m.DEFAULT_LIMITS)),
    m.Pong(time=5, rid=1),
    m.Ok(),
    m.Ok(rid=3, ver=7),
    m.Error(code="bad-message", message="`n`: bad", field="n", rid=1),
    m.Error(code="bad-version", message="v2?", supported=[1]),
    m.Error(code="rate-limited", message="slow down", retry_ms=250),
    m.Error(code="out-of-sync", message="n is 4", n=4),
    m.Error(code="illegal-move", message="no", reason="not-accepted"),
    SNAP,
    m.Queued(game="racing-aces", seats=2, rid=1),
    m.Started(
        race="r1", ver=2, starts_at=1, deadline=2, commitment="c", total=156, view="racing-aces ...", n=0
    ),
    m.Ack(
        race="r1", n=1, ver=3, move="draw", revealed=[("w", "7c")], home=0, won=False, status="playing", at=9
    ),
    m.Ack(
        race="r1",
        n=1,
        ver=3,
        move="draw",
        revealed=[],
        home=0,
        won=False,
        status="playing",
        at=9,
        dup=True,
        view="v",
        legal=["draw"],
        rid=2,
    ),
    PROGRESS,
    END,
    m.State(race=SNAP),
    m.State(
        race=SNAP,
        you=m.You(n=3, view="v", legal=["draw"], home=0, status="playing"),
        events=[PROGRESS, SNAP, END],
    ),
    m.ReplayData(
        race="r1",
        game="racing-aces",
        rules_version=1,
        deal_version=1,
        seed="s",
        commitment="c" * 64,
        ranking=[RANK],
        players=[m.ReplayPlayer(player="p1", name="ada", moves=[("draw", 5), ("w>f0", 7)])],
    ),
    m.RaceList(
        races=[
            m.RaceSummary(
                race="r1",
                game="racing-aces",
                status="running",
                players=[m.SummaryPlayer(name="ada", home=3, status="playing")],
                seats=2,
                total=156,
                starts_at=1,
                deadline=None,
                spectators=2,
            )
        ]
    ),
    m.Boards(race="r1", at=5, boards=[m.BoardView(player="p1", n=3, view="v")]),
    # daily challenges (docs/protocol.md §5)
    m.End(race="r1", ver=4, seed=None, ranking=[RANK]),
    DAILY_OPEN,
    msgspec.structs.replace(
        DAILY_OPEN,
        status="closed",
        seed="s",
        entries=1,
        final=True,
        you=m.DailyYou(race="r1", status="done", entry=DAILY_ENTRY),
        rid=1,
    ),
    m.LeaderboardData(
        game="racing-aces",
        date="2025-03-14",
        status="open",
        final=False,
        count=1,
        top=[DAILY_ENTRY],
        around=[DAILY_ENTRY],
        me=DAILY_ENTRY,
    ),
    m.LeaderboardData(
        game="racing-aces", date="2025-03-14", status="open", final=False, count=0, top=[], around=[], me=None
    ),
    m.LeaderboardUpdate(game="racing-aces", date="2025-03-14", entry=DAILY_ENTRY, count=1),
    m.HistoryData(
        player="p1",
        game="racing-aces",
        today="2025-03-14",
        played=1,
        wins=1,
        streak=1,
        best_streak=1,
        win_streak=1,
        best_win_streak=1,
        # the day of DAILY_ENTRY in ada's history
        days=[m.HistoryDay(date="2025-03-14", count=1, **_without(DAILY_ENTRY, "player", "name", "account"))],
    ),
    m.DailyReplayData(
        game="racing-aces",
        date="2025-03-14",
        rules_version=1,
        deal_version=1,
        seed="s",
        commitment="c",
        total=156,
        ranking=[RANK],
        players=[m.DailyReplayPlayer(player="p1", name="ada", starts_at=1, race="r1", moves=[("draw", 5)])],
    ),
    m.ArenaListData(
        rid=1,
        now=5,
        arenas=[ARENA_SUMMARY],
    ),
    m.ArenaData(
        now=5,
        arena=ARENA_SUMMARY,
        joined=True,
        race=None,
        races=[m.ArenaRace(race="r1", rank=1, points=2)],
        featured="r2",
    ),
    STANDINGS,
    # the same standings, as the live update at the arena's end
    m.ArenaUpdate(
        **(
            msgspec.structs.asdict(STANDINGS)
            | dict(status="over", final=True, me=ARENA_ROW, around=[ARENA_ROW])
        )
    ),
    m.HintData(race="r1", n=3, move="w>t0"),
    m.AnalysisData(
        race="r1",
        players=[
            m.PlayerAnalysis(
                player="p1",
                name="ada",
                verdict="lost-at",
                text="won until move 2, draw; a winning line from there: w>t0",
                last_winnable=1,
                first_lost=2,
                losing_move="draw",
                line=["w>t0"],
            )
        ],
    ),
    m.Account(rid=4, player="p1", name="ada", token="p1.secret"),
    m.ProfileData(
        player="p1",
        name="ada",
        created=1,
        ratings=[m.GameRating(game="racing-aces", rating=RATING, history=[RATED_RACE])],
        races=[RATED_RACE],
        daily=[m.DailyStreak(game="racing-aces", played=3, wins=1, streak=2, best_streak=2)],
    ),
    m.RatingBoardData(
        game="racing-aces", count=1, top=[RATING_ENTRY], around=[RATING_ENTRY], me=RATING_ENTRY
    ),
    m.RatingBoardData(game="racing-aces", count=0, top=[], around=[], me=None),
    m.RatingChange(
        race="r1",
        game="racing-aces",
        players=[m.RatingPlayer(player="p1", name="ada", rank=1, weight=1.0, before=RATING, after=RATING)],
    ),
    m.RematchOffer(race="r1", rematch="r2", by="p1", name="ada"),
    m.RecentRaces(
        rid=32,
        races=[
            _recent("r1", before=RATING, after=RATING),
            _recent(
                "r2",
                game="fours-up",
                kind="arena",
                at=4,
                rank=2,
                status="timeout",
                home=9,
                total=52,
                moves=3,
                time_ms=None,
                rated=False,
                arena="a-1",
            ),
            _recent(
                "r3",
                game="fours-up",
                kind="daily",
                at=3,
                players=1,
                home=52,
                total=52,
                moves=90,
                time_ms=50_000,
                rated=False,
                date="2026-12-01",
                private=True,
            ),
        ],
    ),
    m.RecentRaces(races=[]),
]


def test_every_message_type_has_an_example() -> None:
    assert {type(x) for x in CLIENT_EXAMPLES} == set(m.CLIENT_TYPES)
    assert {type(x) for x in SERVER_EXAMPLES} == set(m.SERVER_TYPES)


def test_every_server_message_struct_is_in_the_union() -> None:
    """The server's messages live in one module per feature and their union in another
    (server_union.py): a struct left out of the union would not decode."""
    assert set(m.ServerMsg.__subclasses__()) == set(m.SERVER_TYPES)
    assert all(cls.__name__ in m.__all__ for cls in m.SERVER_TYPES)


@pytest.mark.parametrize("msg", CLIENT_EXAMPLES, ids=lambda x: type(x).__name__)
def test_client_round_trip(msg: m.ClientMsg) -> None:
    frame = m.encode(msg)
    assert m.decode_client(frame) == msg
    raw = msgspec.msgpack.decode(frame)
    assert raw["t"] == msg.__struct_config__.tag
    if msg.rid is None:
        assert "rid" not in raw  # omit_defaults: optional fields at default are not sent


@pytest.mark.parametrize("msg", CLIENT_EXAMPLES, ids=lambda x: type(x).__name__)
def test_nil_equals_absent_for_every_optional_field(msg: m.ClientMsg) -> None:
    """docs/protocol.md §1: a field marked optional may be absent; absent and nil mean the same."""
    raw = msgspec.msgpack.decode(m.encode(msg))
    optional = [f.encode_name for f in msgspec.structs.fields(type(msg)) if not f.required]
    assert optional, "every client message has at least `rid`"
    for name in optional:
        without = {k: v for k, v in raw.items() if k != name}
        assert m.decode_client(_enc({**without, name: None})) == m.decode_client(_enc(without)), name


@pytest.mark.parametrize("msg", SERVER_EXAMPLES, ids=lambda x: type(x).__name__)
def test_server_round_trip(msg: m.ServerMsg) -> None:
    assert m.decode_server(m.encode(msg)) == msg


def test_nil_fields_are_sent_and_server_decoding_ignores_unknown_keys() -> None:
    raw = msgspec.msgpack.decode(m.encode(SNAP))
    assert raw["seed"] is None and raw["ranking"] is None  # "int or nil": always present
    raw["new_field_from_v1_1"] = [1, 2]
    assert m.decode_server(m.encode(raw)) == SNAP


def test_the_wire_tags_are_spelled_out() -> None:
    """Every tag on the wire, written out here rather than read from the code or the doc
    (tests/client/test_protocol_doc.py holds those two equal): renaming or dropping a tag
    breaks every client already deployed, so it must change this list on purpose."""
    tags = {cls.__struct_config__.tag for cls in m.CLIENT_TYPES}
    assert tags == {
        "hello",
        "ping",
        "create",
        "join",
        "leave",
        "ready",
        "start",
        "quick",
        "unqueue",
        "move",
        "finish",
        "resync",
        "replay",
        "races",
        "spectate",
        "unspectate",
        "daily",
        "daily_start",
        "leaderboard",
        "leaderboard_unwatch",
        "history",
        "daily_replay",
        "arenas",
        "arena",
        "arena_join",
        "arena_withdraw",
        "arena_standings",
        "arena_unwatch",
        "arena_berserk",
        "arena_create",
        "hint",
        "analysis",
        "claim",
        "login",
        "logout",
        "logout_all",
        "password",
        "profile",
        "rating_board",
        "bot",
        "rematch",
        "recent",
    }
    tags = {cls.__struct_config__.tag for cls in m.SERVER_TYPES}
    assert tags == {
        "welcome",
        "pong",
        "ok",
        "error",
        "race",
        "queued",
        "start",
        "ack",
        "progress",
        "end",
        "state",
        "replay",
        "race_list",
        "boards",
        "daily",
        "leaderboard",
        "leaderboard_update",
        "history",
        "daily_replay",
        "arena_list",
        "arena",
        "arena_standings",
        "arena_update",
        "hint",
        "analysis",
        "account",
        "profile",
        "rating_board",
        "rating",
        "rematch",
        "recent_races",
    }


def test_error_codes_cover_protocol_md() -> None:
    import pathlib
    import re

    doc = (pathlib.Path(__file__).parents[2] / "docs" / "protocol.md").read_text()
    section = doc.split("## 6. Errors", 1)[1].split("### Which error first", 1)[0]
    documented = set(re.findall(r"^\| `([a-z-]+)` \|", section, re.M))
    assert documented == {c.value for c in m.ErrorCode}


# --- each bad-input class gets its code ------------------------------------------


def _enc(obj: Any) -> bytes:
    return msgspec.msgpack.encode(obj)


MOVE = {"t": "move", "race": "r1", "n": 0, "move": "draw"}
BAD_UTF8 = b"\xa2\xff\xfe"  # a MessagePack str of two bytes that are not UTF-8


def _raw_map(fields: dict[str, Any], **raw: bytes) -> bytes:
    """A map of `fields` plus keys whose values are the raw MessagePack bytes given."""
    out = bytes([0x80 | (len(fields) + len(raw))])
    for k, v in fields.items():
        out += _enc(k) + _enc(v)
    for k, b in raw.items():
        out += _enc(k) + b
    return out


BAD_INPUTS: list[tuple[str, Any, str, str | None]] = [
    # (case, frame, code, field)
    ("text frame", "hello", "bad-frame", None),
    ("not bytes", 12, "bad-frame", None),
    ("empty", b"", "bad-frame", None),
    ("malformed", b"\xc1", "bad-frame", None),
    ("truncated", _enc(MOVE)[:-3], "bad-frame", None),
    ("trailing bytes", _enc(MOVE) + b"\x00", "bad-frame", None),
    ("invalid utf-8", b"\x81\xa1t\xa2\xff\xfe", "bad-frame", None),
    ("array", _enc([1, 2]), "bad-frame", None),
    ("string", _enc("move"), "bad-frame", None),
    ("nil", _enc(None), "bad-frame", None),
    ("int key", _enc({1: 2, "t": "ping"}), "bad-frame", None),
    ("no t", _enc({"race": "r1"}), "bad-message", "t"),
    ("unknown t", _enc({"t": "teleport"}), "unknown-type", "t"),
    ("server-only t", _enc({"t": "ack"}), "unknown-type", "t"),
    ("t not a string", _enc({"t": 5}), "unknown-type", "t"),
    ("missing field", _enc({"t": "move", "race": "r1", "n": 0}), "bad-message", "move"),
    ("unknown key", _enc({**MOVE, "nn": 1}), "bad-message", "nn"),
    ("wrong type", _enc({**MOVE, "n": "0"}), "bad-message", "n"),
    ("bool for int", _enc({**MOVE, "n": True}), "bad-message", "n"),
    ("float for int", _enc({**MOVE, "n": 1.0}), "bad-message", "n"),
    ("negative n", _enc({**MOVE, "n": -1}), "bad-message", "n"),
    ("huge n", _enc({**MOVE, "n": 2**63}), "bad-message", "n"),
    ("long move", _enc({**MOVE, "move": "x" * 17}), "bad-message", "move"),
    ("empty move", _enc({**MOVE, "move": ""}), "bad-message", "move"),
    ("long race id", _enc({**MOVE, "race": "r" * 65}), "bad-message", "race"),
    ("rid negative", _enc({**MOVE, "rid": -1}), "bad-message", "rid"),
    ("rid too big", _enc({**MOVE, "rid": 2**31}), "bad-message", "rid"),
    ("view not bool", _enc({**MOVE, "view": 1}), "bad-message", "view"),
    ("seats 0", _enc({"t": "create", "game": "g", "seats": 0}), "bad-message", "seats"),
    ("seats 9", _enc({"t": "create", "game": "g", "seats": 9}), "bad-message", "seats"),
    ("quick seats 1", _enc({"t": "quick", "game": "g", "seats": 1}), "bad-message", "seats"),
    ("time limit 29", _enc({"t": "create", "game": "g", "time_limit_s": 29}), "bad-message", "time_limit_s"),
    (
        "time limit 7201",
        _enc({"t": "create", "game": "g", "time_limit_s": 7201}),
        "bad-message",
        "time_limit_s",
    ),
    ("name too long", _enc({"t": "hello", "v": 1, "name": "x" * 25}), "bad-message", "name"),
    ("name empty", _enc({"t": "hello", "v": 1, "name": ""}), "bad-message", "name"),
    ("name control", _enc({"t": "hello", "v": 1, "name": "a\nb"}), "bad-message", "name"),
    ("name zero-width", _enc({"t": "hello", "v": 1, "name": "a\u200bb"}), "bad-message", "name"),
    ("name padded", _enc({"t": "hello", "v": 1, "name": " ada"}), "bad-message", "name"),
    # msgspec searches a pattern: a `$` would also match before a final newline.
    ("name, a final newline", _enc({"t": "hello", "v": 1, "name": "ada\n"}), "bad-message", "name"),
    ("name, nothing drawn", _enc({"t": "hello", "v": 1, "name": "\u3164\u034f"}), "bad-message", "name"),
    # A bidi isolate or the Arabic letter mark reorders what follows the name on a screen, as an
    # override does: they passed.
    ("name, a bidi isolate", _enc({"t": "hello", "v": 1, "name": "ab\u2067cd"}), "bad-message", "name"),
    ("name, a letter mark", _enc({"t": "hello", "v": 1, "name": "ab\u061ccd"}), "bad-message", "name"),
    (
        "date, a final newline",
        _enc({"t": "daily", "game": "g", "date": "2026-12-01\n"}),
        "bad-message",
        "date",
    ),
    (
        "date, other digits",
        _enc({"t": "daily", "game": "g", "date": "\u0662026-12-01"}),
        "bad-message",
        "date",
    ),
    ("arena id, a final newline", _enc({"t": "arena_join", "arena": "a\n"}), "bad-message", "arena"),
    ("hello v missing", _enc({"t": "hello"}), "bad-message", "v"),
    (
        "arena name bidi",
        _enc({"t": "arena_create", "arena": "a", "game": "g", "duration_ms": 10_000, "name": "a\u202eb"}),
        "bad-message",
        "name",
    ),
    ("binary for str", _enc({**MOVE, "move": b"draw"}), "bad-message", "move"),
    ("nested for str", _enc({**MOVE, "race": {"a": 1}}), "bad-message", "race"),
    ("nil for required", _enc({**MOVE, "race": None}), "bad-message", "race"),
    # Invalid UTF-8 anywhere makes the frame bad-frame, whatever field holds it.
    ("invalid utf-8 in a str field", _raw_map(MOVE, race=BAD_UTF8), "bad-frame", None),
    ("invalid utf-8 in an int field", _raw_map(MOVE, n=BAD_UTF8), "bad-frame", None),
    ("invalid utf-8 in a bool field", _raw_map(MOVE, view=BAD_UTF8), "bad-frame", None),
    ("invalid utf-8 in rid", _raw_map(MOVE, rid=BAD_UTF8), "bad-frame", None),
    ("invalid utf-8 in an unknown field", _raw_map(MOVE, zz=BAD_UTF8), "bad-frame", None),
    ("invalid utf-8 in t", _raw_map({"race": "r1"}, t=BAD_UTF8), "bad-frame", None),
    ("invalid utf-8 in a key", b"\x82\xa1t\xa4ping\xa2\xff\xfe\xc0", "bad-frame", None),
    ("invalid utf-8 with an unknown t", _raw_map({"t": "teleport"}, zz=BAD_UTF8), "bad-frame", None),
    ("invalid utf-8 nested", _raw_map(MOVE, race=b"\x91" + BAD_UTF8), "bad-frame", None),
    # Two `t` keys naming different types (a map's keys are not checked for repeats: the last wins).
    ("t twice", b"\x83\xa1t\xa4ping\xa3rid\x06\xa1t\xa5hello", "bad-message", "t"),
    ("t twice, a server type last", b"\x82\xa1t\xa4ping\xa1t\xa7welcome", "unknown-type", "t"),
    ("t twice, a list last", b"\x83\xa1t\xa8teleport\xa3rid\x07\xa1t\x91\x01", "unknown-type", "t"),
    ("t twice, a map last", b"\x82\xa1t\xa7welcome\xa1t\x81\xa1a\x01", "unknown-type", "t"),
    # Well-formed, 4 KB, but nested 4,000 deep in an unknown field: deeper than the decoder goes.
    ("nested too deeply", b"\x82\xa1t\xa4ping\xa2zz" + b"\x91" * 4000 + b"\xc0", "bad-frame", None),
]


@pytest.mark.parametrize(("case", "frame", "code", "field"), BAD_INPUTS, ids=[c[0] for c in BAD_INPUTS])
def test_bad_input_codes(case: str, frame: Any, code: str, field: str | None) -> None:
    with pytest.raises(m.ProtocolError) as info:
        m.decode_client(frame)
    err = info.value
    assert err.code == code
    assert err.field == field
    assert err.message
    reply = err.to_error()
    assert m.decode_server(m.encode(reply)) == reply


@pytest.mark.parametrize("name", ["Zoë", "❤️ ada", "ad\u00adm", "李雷"])
def test_a_name_with_something_drawn_is_taken(name: str) -> None:
    """An invisible character beside drawn ones (the heart's variation selector, a soft
    hyphen) is taken: names are compared without it (server/core/lookalikes.py)."""
    hello = m.decode_client(_enc({"t": "hello", "v": 1, "name": name}))
    assert isinstance(hello, m.Hello) and hello.name == name


@pytest.mark.parametrize("arena", ["-x", "X1", "a_b", "a b"])
def test_a_bad_arena_id_says_what_an_id_is(arena: str) -> None:
    """docs/protocol.md §5a: an arena id is `a-z 0-9 -`; the message says so (not the display
    name's rule, which an id is not held to)."""
    with pytest.raises(m.ProtocolError) as info:
        m.decode_client(_enc({"t": "arena_join", "arena": arena}))
    assert (info.value.code, info.value.field) == ("bad-message", "arena")
    assert "a-z, 0-9 and -" in info.value.message and "printable" not in info.value.message


def test_a_frame_nested_too_deeply_says_so() -> None:
    with pytest.raises(m.ProtocolError) as info:
        m.decode_client(b"\x82\xa1t\xa4ping\xa2zz" + b"\x91" * 4000 + b"\xc0")
    assert info.value.message == "MessagePack nested too deeply"


def test_error_echoes_rid_when_readable() -> None:
    with pytest.raises(m.ProtocolError) as info:
        m.decode_client(_enc({"t": "teleport", "rid": 42}))
    assert info.value.rid == 42 and info.value.to_error().rid == 42
    with pytest.raises(m.ProtocolError) as info:
        m.decode_client(_enc({**MOVE, "n": -1, "rid": 7}))
    assert info.value.rid == 7
    with pytest.raises(m.ProtocolError) as info:
        m.decode_client(_enc({**MOVE, "rid": "7"}))
    assert info.value.rid is None and info.value.field == "rid"
    # A map with a key that is not a string is bad-frame, but its `rid` is read all the same.
    with pytest.raises(m.ProtocolError) as info:
        m.decode_client(msgspec.msgpack.encode({1: 2, "t": "ping", "rid": 8}))
    assert (info.value.code, info.value.rid, info.value.to_error().rid) == ("bad-frame", 8, 8)
    with pytest.raises(m.ProtocolError) as info:
        m.decode_client(msgspec.msgpack.encode({1: 2, "t": "ping", "rid": 2**31}))
    assert (info.value.code, info.value.rid) == ("bad-frame", None)
    assert m.probe_rid(msgspec.msgpack.encode({1: 2, "t": "ping", "rid": 8})) == 8  # a rate-limited one's


def test_valid_edge_values() -> None:
    hello = m.decode_client(_enc({"t": "hello", "v": 1, "name": "é ü — 名前"}))
    assert isinstance(hello, m.Hello) and hello.name == "é ü — 名前"
    move = m.decode_client(_enc({**MOVE, "n": 2**31 - 1, "move": "x" * 16}))
    assert isinstance(move, m.Move) and move.n == 2**31 - 1
    # The tag may come anywhere in the map.
    assert m.decode_client(_enc({"race": "r1", "n": 0, "move": "draw", "t": "move"})) == m.Move(
        race="r1", n=0, move="draw"
    )


def test_server_decode_errors_are_protocol_errors() -> None:
    for frame in (b"", b"\xc1", _enc([]), _enc({"t": "nope"}), _enc({"t": "ack"})):
        with pytest.raises(m.ProtocolError):
            m.decode_server(frame)


# --- fuzz ---------------------------------------------------------------------------


def _check(frame: Any) -> None:
    """The decode_client contract, for one input."""
    try:
        msg = m.decode_client(frame)
    except m.ProtocolError as err:
        assert err.code in DECODE_CODES
        assert err.field is None or isinstance(err.field, str)
        assert err.rid is None or (type(err.rid) is int and 0 <= err.rid <= m.MAX_RID)
        assert isinstance(err.message, str) and err.message
        return
    assert isinstance(msg, m.CLIENT_TYPES)
    assert m.decode_client(m.encode(msg)) == msg


VALID_FRAMES = [m.encode(x) for x in CLIENT_EXAMPLES]


# 1100 + 400 + 500 hypothesis examples (plus 20,000 cheap mutations below); ten times
# as many with --hypothesis-profile=deep (tests/depth.py).
def _fuzz(n: int) -> Any:
    return settings(
        max_examples=examples(n), deadline=None, suppress_health_check=list(HealthCheck), database=None
    )


msgpack_ints = st.integers(min_value=-(2**63), max_value=2**64 - 1)
msgpack_scalars = (
    st.none() | st.booleans() | msgpack_ints | st.floats() | st.text(max_size=40) | st.binary(max_size=40)
)
msgpack_values = st.recursive(
    msgpack_scalars,
    lambda kids: (
        st.lists(kids, max_size=5) | st.dictionaries(st.text(max_size=12) | msgpack_ints, kids, max_size=5)
    ),
    max_leaves=10,
)
FIELD_NAMES = sorted({f.encode_name for cls in m.CLIENT_TYPES for f in msgspec.structs.fields(cls)})
TAGS = sorted({str(cls.__struct_config__.tag) for cls in m.CLIENT_TYPES})
edgy_values = msgpack_scalars | st.sampled_from(
    [
        0,
        1,
        -1,
        2,
        8,
        9,
        29,
        30,
        7200,
        7201,
        2**31 - 1,
        2**31,
        "",
        "draw",
        "r1",
        " x",
        "x" * 16,
        "x" * 17,
        "x" * 65,
        True,
        False,
    ]
)
# Near-valid maps: a real tag and real field names with adversarial values.
near_valid = st.builds(
    lambda tag, fields: {"t": tag, **fields},
    st.sampled_from(TAGS + ["", "Move", "ack"]),
    st.dictionaries(st.sampled_from(FIELD_NAMES), edgy_values, max_size=6),
)


@_fuzz(1100)
@given(st.binary(max_size=300))
def test_fuzz_random_bytes(frame: bytes) -> None:
    _check(frame)


@_fuzz(400)
@given(msgpack_values | near_valid)
def test_fuzz_random_msgpack_values(value: Any) -> None:
    _check(msgspec.msgpack.encode(value))


@_fuzz(500)
@given(
    st.sampled_from(VALID_FRAMES),
    st.lists(st.tuples(st.integers(0, 3), st.integers(0, 400), st.integers(0, 255)), min_size=1, max_size=4),
)
def test_fuzz_mutated_valid_frames(frame: bytes, edits: list[tuple[int, int, int]]) -> None:
    buf = bytearray(frame)
    for op, pos, byte in edits:
        pos = pos % (len(buf) + 1)
        if op == 0 and buf:
            buf[pos % len(buf)] = byte  # overwrite
        elif op == 1:
            buf.insert(pos, byte)  # insert
        elif op == 2 and buf:
            del buf[pos % len(buf)]  # delete
        else:
            del buf[pos:]  # truncate
    _check(bytes(buf))


def test_fuzz_many_cheap_mutations() -> None:
    """20,000 deterministic byte-level mutations (deep: 200,000): cheap breadth beyond hypothesis."""
    rng = random.Random(20240601)
    for _ in range(examples(20_000)):
        buf = bytearray(rng.choice(VALID_FRAMES))
        for _ in range(rng.randint(1, 3)):
            i = rng.randrange(len(buf))
            if rng.random() < 0.7:
                buf[i] = rng.randrange(256)
            else:
                del buf[i:]
                if not buf:
                    break
        _check(bytes(buf))


def test_move_decode_is_fast() -> None:
    frame = m.encode(m.Move(race="r8a3bc9d", n=123, move="t2:3>t5", rid=77))
    runs = 20_000
    per_call = min(timeit.repeat(lambda: m.decode_client(frame), number=runs, repeat=5)) / runs
    # Target about 1 µs; measured ~0.2 µs. A generous bound keeps CI machines green.
    assert per_call < 5e-6, per_call
