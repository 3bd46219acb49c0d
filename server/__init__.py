"""The race server, laid out by concern (each layer imports only the ones below it).

``cli``, ``app``   `solrace serve`, and the wiring: Redis, store, service, gateway
``net/``           the network edge: WebSocket fast lane, connections, rate limits, HTTP
``daily/``         daily challenges: pure days/fair/history, then keys/scripts/deals/boards/service/handlers
``service``        the process: its rooms, bus, timers and the request table
``handlers/``      the requests by feature: session, lobby, play, watch, clock, fan-out
``storage/``       everything that talks to Redis: keys, Lua scripts, records, the typed move pipe
``core/``          the race core, no I/O: lifecycle, transitions, move decisions, event order, sampling
``config``, ``metrics``

Where to change what: a request or message type: protocol/messages, then a
handler in handlers/ and its entry in ``Service.handlers``; a rule of racing
(start, end, who receives what): core/, with its unit test in tests/server/core;
the ranking: protocol/ranking.py; a game: protocol/rules (the server takes every
game there); a stored field or script: storage/.
"""
