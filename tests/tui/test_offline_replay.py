"""The offline session answers `replay` like the server once a race is over (so that
`solrace watch --offline` shows the final boards): the moves re-play to every seat's board."""

from __future__ import annotations

import pytest
from waiting import until as loop_until

from client.tui.errors import ServerError
from client.tui.offline import LocalSession
from client.tui.replay_model import build_replay

from .helpers import offline_race_running


async def test_a_finished_offline_race_replays_to_its_boards() -> None:
    session = LocalSession(name="ada", countdown_ms=20, rival_interval=0.005, rival_max_moves=15)
    await session.request("quick", game="racing-aces", seats=2)
    race = await offline_race_running(session)
    with pytest.raises(ServerError) as refused:
        await session.request("replay", race=race.id)
    assert refused.value.code == "race-not-over"
    me = session.seat(race)
    assert me is not None
    move = me.dealt().legal_moves()[0]
    await session.request("move", race=race.id, n=0, move=move)
    await session.request("finish", race=race.id)
    await loop_until(lambda: race.status == "finished", what="the race's end")
    replay = build_replay(await session.request("replay", race=race.id))
    finals = {p.player: p.frames[-1].view for p in replay.players}
    assert finals == {s.player: s.dealt().view_text() for s in race.seats}
    await session.close()
