"""The requests of docs/protocol.md, by feature, over the race core and the store.

``runtime``  what the handlers need of the process that runs them (a Protocol)
``session``  hello (identity, resumed seats), ping and disconnect
``lobby``    create, join, leave, ready, start
``quick_match`` casual quick-match: quick, unqueue, and seating a matched group (arenas' too)
``play``     the move path, finish, resync
``watch``    spectating and the delayed boards, the race list, replays
``clock``    countdown ends and deadlines: start and end of races
``presence`` who waits in a public lobby: unattended ones off the race list, their seats given back
``fanout``   published race events to this process's members and spectators; gap fill
``accounts`` claim, login, logout, password, profile, rating boards; account tokens in hello
``rated``    rated create/join/start, the rating pool's matchmaking loop, rating a race's end
``rated_queue`` rated quick-match: the rating pool's entries, seating the groups formed from it
``seating``  what becomes of a matched group whose race could not be made
``recent``   recent: a player's own finished races, written at each race's end
``rematch``  rematch: a new race of the same players, or a seat in the one asked already
``bots``     bot: a bot seated by a bot worker (the request queue in storage/bots.py)
``arena``    arena requests (list, join, withdraw, standings, berserk, create);
``arena_loop`` the loop that pairs arena players and applies results
(the daily challenge's requests are in server/daily/handlers.py, the solver's in server/certify)
"""
