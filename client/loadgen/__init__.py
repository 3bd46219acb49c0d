"""Load generator of `solrace bench` and its echo baseline server.

wsclient  a lean WebSocket client on an asyncio Protocol (zero-key masking)
echo      the baseline server: websockets + uvloop, echo and broadcast
gen       bots and echo connections, open and closed loop, latency recording
procs     subprocesses under test; CPU and RSS from /proc
run       the three modes (moves, idle, fanout)
report    tables with ratios to the baseline
"""
