"""What is kept of a race goes with it (a soak audit): a process's caches with the race's room
there (the move command parts of every race a process ever served were kept until 100,000 of
them, 70–90 MB), and its public listing with its record."""

from __future__ import annotations

from test_server_race import make_race, play
from waiting import until
from wsclient import player

from server import storage as S


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


async def test_a_lobby_whose_record_expired_leaves_the_public_index_at_its_next_tick(server):
    """A public lobby that expires (`--lobby-ttl-s` after its last change) kept its id in the
    public index until a `races` request read that far (a soak audit)."""
    ada = await player(server.ws_url, "ada")
    rid = (await ada.request("create", game="fours-up", seats=2))["race"]
    store = server.store
    assert rid in await store.public_races(100)
    await store.redis.delete(S.race_key(rid))  # as its TTL would
    await server.service.clock.tick(rid)
    assert rid not in await store.public_races(100)
    assert await store.scheduled_at(rid) is None
    await ada.close()
