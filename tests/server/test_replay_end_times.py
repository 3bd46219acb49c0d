"""The `replay` reply says when each player's game ended (`ended_ms`, docs/protocol.md §3), so
that a replay shows a timed-out player's "time up" at their deadline: their ranking entry has
no time for it (`time_ms` is nil for a timeout), and the deadline can come long after the
race's last move or declaration, which the terminal viewer used to show it at."""

from __future__ import annotations

from race_clock import end_clock_later
from test_server_race import WIN, make_race, play
from wsclient import player

from client.cli.verify import verify
from client.tui.replay_model import Cursor, build_replay, end_ms, jump, switch
from client.tui.replay_text import status_text
from client.tui.text import duration

# The race's time runs out this long after the moves (by Redis' clock, the server's).
LATER_MS = 400


async def test_a_timeout_ends_at_the_deadline_in_the_replay(server):
    a = await player(server.ws_url, "ada")
    b = await player(server.ws_url, "bob")
    server.service.seed_factory = lambda: WIN["seed"]
    rid = await make_race(server, [a, b], WIN["game"], time_limit_s=600)
    await play(b, rid, WIN["moves"][:2])
    await play(a, rid, WIN["moves"][:3])
    assert (await a.request("finish", race=rid))["t"] == "ok"  # ada declares; bob plays on
    deadline = await end_clock_later(server.settings.redis, rid, LATER_MS)
    await b.wait("end")
    race = (await b.request("resync", race=rid))["race"]
    assert race["deadline"] == deadline
    start = race["starts_at"]
    rep = await b.request("replay", race=rid)
    ended = {p["name"]: p["ended_ms"] for p in rep["players"]}
    ranked = {e["name"]: e for e in rep["ranking"]}
    assert ranked["bob"]["status"] == "timeout" and ranked["bob"]["time_ms"] is None
    assert ended == {"ada": ranked["ada"]["time_ms"], "bob": deadline - start}
    checked = verify(rep)  # solrace verify reads it as it is, ended_ms too
    assert checked.confirmed and any("ended_ms" in c for c in checked.checked), checked.text()

    replay = build_replay(rep)
    ada, bob = replay.index_of("ada"), replay.index_of("bob")
    last_event = max(ranked["ada"]["time_ms"], ranked["ada"]["last_move_ms"], ranked["bob"]["last_move_ms"])
    assert end_ms(replay, bob) == deadline - start >= last_event + LATER_MS
    # From ada's end (her declaration, the race's last event), bob's time is not up yet...
    line = status_text(replay, switch(replay, jump(replay, Cursor(ada), True), bob))
    assert "time up" not in line and line.endswith(f"{duration(ranked['ada']['time_ms'])} into the race")
    # ... it is at the deadline: bob's end.
    assert status_text(replay, jump(replay, Cursor(bob), True)).endswith(
        f"· {duration(deadline - start)} into the race · time up"
    )
    await a.close()
    await b.close()


async def test_the_replay_says_when_the_race_started_so_a_shift_of_its_times_is_caught(server):
    a = await player(server.ws_url, "ada")
    b = await player(server.ws_url, "bob")
    server.service.seed_factory = lambda: WIN["seed"]
    rid = await make_race(server, [a, b], WIN["game"], time_limit_s=600)
    await play(b, rid, WIN["moves"][:2])
    await play(a, rid, WIN["moves"])  # ada wins; bob gives up, which ends the race
    assert (await b.request("finish", race=rid))["t"] == "ok"
    await b.wait("end")
    start = (await b.request("resync", race=rid))["race"]["starts_at"]
    rep = await b.request("replay", race=rid)
    assert rep["starts_at"] == start
    checked = verify(rep)
    assert checked.confirmed and not any("inferred" in n for n in checked.notes), checked.text()

    # Every move's time moved by the same second: the figures still agree with each other, and
    # only the start tells them wrong (a reply without it is checked against an inferred start).
    shifted = {
        **rep,
        "players": [{**p, "moves": [[mv, at + 1000] for mv, at in p["moves"]]} for p in rep["players"]],
    }
    refuted = verify(shifted)
    ada = next(p["player"] for p in rep["players"] if p["name"] == "ada")
    assert not refuted.confirmed and f"{ada}: recorded time_ms" in refuted.text(), refuted.text()
    older = {k: v for k, v in shifted.items() if k != "starts_at"}
    assert verify(older).confirmed  # what a server before `starts_at` gave: unseen, as it was
    await a.close()
    await b.close()
