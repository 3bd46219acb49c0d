"""What a process keeps of a race lives as long as the race's room there: once its last member
left, the room's caches go (a soak found the move command parts of every race a process ever
served kept until 100,000 of them, 70–90 MB)."""

from __future__ import annotations

from test_server_race import make_race, play
from waiting import until
from wsclient import player


async def test_a_rooms_move_commands_go_with_it(server):
    ada, bob = await player(server.ws_url, "ada"), await player(server.ws_url, "bob")
    rid = await make_race(server, [ada, bob], "fours-up")
    for c in (ada, bob):
        await play(c, rid, ["draw"])
    heads = server.store.moves._heads
    assert {(rid, ada.player), (rid, bob.player)} <= set(heads)
    for c in (ada, bob):
        await c.close()
    await until(lambda: rid not in server.service.local, what="the room dropped")
    assert not [k for k in heads if k[0] == rid]
    assert not [k for k in server.service.games if k[0] == rid]
