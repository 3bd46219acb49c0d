"""The network edge: the WebSocket endpoint and the HTTP side of the same port.

``gateway``    accepts connections; each connection's life (admission, hello timeout, closes), its requests in order
``dispatch``   one frame to its answer: rate credits, decoding, the move's fast path, hello, the handlers, errors
``admission``  connections per address and per player (all processes), each player's rate credits
``addresses``  client addresses (X-Forwarded-For) and the networks the settings name
``wsconn``     the binary-frame fast lane under websockets
``conn``       one connection's transport: the outbound queue, the ordered replies, flow control, close
``backlog``    the process-wide bound on what slow connections hold (OUTBOUND_TOTAL)
``inbound``    one connection's inbound side: its session, rate credits, the work that waits
``ratelimit``  the token bucket of RATE/BURST
``broadcast``  one coalescible frame to many sockets (spectator boards)
``http``       /healthz, /metrics, the web client's files
"""
