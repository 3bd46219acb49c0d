"""The network edge: the WebSocket endpoint and the HTTP side of the same port.

``gateway``    accepts connections, per-address limits, the hello phase, dispatch in order
``wsconn``     the binary-frame fast lane under websockets
``conn``       one connection's transport: the outbound queue, flow control, close
``inbound``    one connection's inbound side: its session, rate credits, the work that waits
``ratelimit``  the token bucket of RATE/BURST
``broadcast``  one coalescible frame to many sockets (spectator boards)
``http``       /healthz, /metrics, the web client's files
"""
