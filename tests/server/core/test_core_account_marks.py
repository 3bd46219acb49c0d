"""A seat remembers whether an account took it, and what the wire sees of the race says so
(docs/protocol.md §3): the rules and views alone, no I/O."""

from __future__ import annotations

import json

import msgspec
from lobby_race import lobby_race

from protocol import rules
from server.core import races as R
from server.storage.records import race_fields, race_from_load


def test_a_seat_taken_as_an_account_is_marked_and_a_guest_seat_is_not():
    race = R.new_race(
        race="r1",
        game="fours-up",
        total=rules.GAMES["fours-up"].total,
        seats=3,
        time_limit_s=60,
        private=False,
        host="p1",
        host_name="ada",
        host_account=True,
        now=1000,
        seed="s",
    )
    race = R.join(race, "p2", "ada")  # a guest taking the account's name: "ada 2", unmarked
    race = R.join(race, "bot-1", "Search bot")
    assert [(p.name, p.account) for p in race.players] == [
        ("ada", True),
        ("ada 2", False),
        ("Search bot", False),
    ]
    players = R.snapshot(race)["players"]
    assert [p.account for p in players] == [True, False, False]
    # On the wire the mark is optional: absent for a guest or a bot (old readers see nothing new).
    assert [p.get("account") for p in msgspec.to_builtins(players)] == [True, None, None]
    summary = R.summary(race)["players"]
    assert [(p.account, p.bot) for p in summary] == [(True, False), (False, False), (False, True)]


def test_a_quick_race_marks_the_accounts_it_was_given():
    race = R.new_quick_race(
        race="q1",
        game="fours-up",
        total=rules.GAMES["fours-up"].total,
        time_limit_s=60,
        players=[("p1", "ada"), ("p2", "bob")],
        accounts={"p2"},
        now=1000,
        countdown_ms=3000,
        seed="s",
    )
    assert [p.account for p in race.players] == [False, True]


def test_the_mark_is_stored_with_the_seat_and_read_back():
    race = R.join(lobby_race(), "p2", "bob", account=True)
    fields = race_fields(race)
    assert [s.get("account", False) for s in json.loads(fields["players"])] == [False, True]
    flat = [x for k, v in {**fields, "ver": race.ver}.items() for x in (k.encode(), str(v).encode())]
    _now, loaded = race_from_load([0, flat])
    assert loaded is not None
    assert [p.account for p in loaded.players] == [False, True]


def test_the_ranking_rows_mark_the_accounts():
    race = R.join(lobby_race(), "p2", "bob", account=True)
    race = R.set_ready(R.set_ready(race, "p1", True, 1000, 0), "p2", True, 1000, 0)
    race = R.end(R.begin(race), 5000, {})
    rows = {row["player"]: row for row in race.ranking or []}
    assert rows["p2"]["account"] is True and "account" not in rows["p1"]
    assert [e.account for e in R.snapshot(race)["ranking"]] == [
        rows[e.player].get("account", False) for e in R.snapshot(race)["ranking"]
    ]
