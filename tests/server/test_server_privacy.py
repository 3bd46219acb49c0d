"""Privacy over real sockets (docs/protocol.md §3 "Privacy"): private races and their
invites, daily attempts nobody else can follow while they run."""

from __future__ import annotations

from typing import Any

import pytest
from test_server_race import play
from wsclient import player


def code(reply: dict) -> str | None:
    return reply.get("code") if reply.get("t") == "error" else None


async def test_a_private_race_is_seen_only_by_its_players_and_invite_holders(server):
    url = server.ws_url
    ada = await player(url, "ada")
    bob = await player(url, "bob")
    eve = await player(url, "eve")
    public = await ada.request("create", game="fours-up")
    assert "invite" not in public  # a public race has no secret
    snap = await ada.request("create", game="fours-up", seats=3, private=True)
    rid, invite = snap["race"], snap["invite"]
    assert snap["private"] and len(invite) >= 20 and invite not in rid

    # An outsider with the race id alone (or a wrong secret) gets nothing.
    for secret in (None, "x" * len(invite), invite[:-1]):
        extra: dict[str, Any] = {} if secret is None else {"invite": secret}
        assert code(await eve.request("resync", race=rid, since=0, **extra)) == "private-race"
        assert code(await eve.request("spectate", race=rid, **extra)) == "private-race"
        assert code(await eve.request("join", race=rid, **extra)) == "private-race"
        assert code(await eve.request("replay", race=rid, **extra)) == "private-race"
    assert not any(m.get("t") in ("race", "progress", "state") for m in eve.unread)
    # A public race: anyone may resync it, no secret needed.
    assert (await eve.request("resync", race=public["race"]))["t"] == "state"

    # The link's secret opens it: resync and spectate (no invite handed on to a watcher).
    state = await eve.request("resync", race=rid, since=0, invite=invite)
    assert state["t"] == "state" and state["race"]["race"] == rid and "invite" not in state["race"]
    assert [e["ver"] for e in state["events"]] == [1]
    watched = await eve.request("spectate", race=rid, invite=invite)
    assert watched["t"] == "race" and "invite" not in watched
    assert (await eve.request("unspectate", race=rid))["t"] == "ok"

    # Joining with it makes a player, who is handed the invite and needs it no more.
    joined = await bob.request("join", race=rid, invite=invite)
    assert joined["t"] == "race" and joined["invite"] == invite
    assert (await bob.request("resync", race=rid))["race"]["invite"] == invite
    # The lobby event every member and watcher receives never carries the secret.
    event = await ada.wait(lambda m: m.get("t") == "race" and "rid" not in m and len(m["players"]) == 2)
    assert "invite" not in event
    # A player spectating their own private race is told is-player, not private-race.
    assert code(await ada.request("spectate", race=rid)) == "is-player"
    # Leaving gives up the view: the invite is needed again.
    assert (await bob.request("leave", race=rid))["t"] == "race"
    assert code(await bob.request("resync", race=rid)) == "private-race"
    for c in (ada, bob, eve):
        await c.close()


@pytest.mark.daily  # a daily attempt on the real clock (tests/conftest.py)
async def test_a_daily_attempt_cannot_be_followed_while_it_runs(server):
    url = server.ws_url
    ada = await player(url, "ada")
    bob = await player(url, "bob")
    snap = await ada.request("daily_start", game="racing-aces")
    rid = snap["race"]
    assert snap["t"] == "race" and snap["private"] and "invite" not in snap
    await ada.wait(lambda m: m.get("t") == "start" and m["race"] == rid)
    await play(ada, rid, ["draw", "draw", "draw"])

    # The race id is no key: resync, spectate, join and replay are all refused.
    assert code(await bob.request("resync", race=rid, since=0)) == "private-race"
    assert code(await bob.request("resync", race=rid, invite="guess")) == "private-race"
    assert code(await bob.request("spectate", race=rid)) == "private-race"
    assert code(await bob.request("join", race=rid)) == "private-race"
    assert code(await bob.request("replay", race=rid)) == "private-race"
    assert not any(m.get("t") in ("race", "progress", "state", "boards") for m in bob.unread)
    # Its player follows it as usual.
    mine = await ada.request("resync", race=rid, since=0)
    assert mine["t"] == "state" and mine["you"]["n"] == 3

    # Once the attempt is over its result is public (it is on the leaderboard), its moves not yet.
    assert (await ada.request("finish", race=rid))["t"] == "ok"
    await ada.wait(lambda m: m.get("t") == "end" and m["race"] == rid)
    after = await bob.request("resync", race=rid, since=0)
    assert after["t"] == "state" and after["race"]["status"] == "finished" and after["race"]["seed"] is None
    assert "you" not in after and after.get("events") is None  # the result, not move by move
    assert len((await ada.request("resync", race=rid, since=0))["events"]) >= 4
    assert code(await bob.request("replay", race=rid)) == "daily-open"
    assert code(await bob.request("spectate", race=rid)) == "private-race"
    assert code(await bob.request("join", race=rid)) == "private-race"
    for c in (ada, bob):
        await c.close()
