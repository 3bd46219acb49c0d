"""The race server, laid out by concern (each layer imports only the ones below it; `config`
reaches up only to parse its settings' values with the parsers of the layers that use them).

``cli``, ``app``   `solrace serve`, and the wiring: Redis, store, service, gateway, feature installers
``botworkers``     the `solrace bots` worker processes `solrace serve` starts and restarts
``net/``           the network edge: WebSocket fast lane, connections, rate limits, HTTP
``daily/``         daily challenges: pure days/fair/history, then keys/scripts/deals/boards/service/handlers
``arena/``         arena tournaments: schedule, scoring, pairing, results, their Redis store
``ratings/``       accounts, ratings, the rating pool's matchmaking, and their Redis stores
``certify/``       the solver worker processes: certified-deal pools, hints, analysis
``service``        the process: its rooms, bus, timers and the request table
``handlers/``      the requests by feature (handlers/__init__.py lists them)
``storage/``       everything that talks to Redis: keys, Lua scripts, records, the typed move pipe
``core/``          the race core, no I/O: lifecycle, transitions, move decisions, event order, sampling
``config``, ``metrics``, ``logs``, ``tasks``, ``retries``

Where to change what: a request or message type: protocol/messages, then a
handler in handlers/ and its entry in ``Service.handlers`` (or its feature's ``install``); a rule of racing
(start, end, who receives what): core/, with its unit test in tests/server/core;
the ranking: protocol/ranking.py; a game: protocol/rules (the server takes every
game there); a stored field or script: storage/.
"""
