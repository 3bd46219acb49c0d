"""Load generator of `solrace bench` and its echo baseline server.

wsclient   a lean WebSocket client on an asyncio Protocol (zero-key masking)
echo       the baseline server: websockets + uvloop, echo and broadcast
pacing     open and closed loop, latency recording (shared by all generators)
bot        a race-server bot playing random legal moves from its own view
movegen    groups of bots, one race after another
echogen    connections to the echo baseline
scriptgen  the Redis baseline: a minimal scripted call on the server's Redis
gen        the generators and their codec in one import
procs      subprocesses under test; CPU and RSS from /proc
measure    measured windows and their figures
run        the three modes: moves, idle, fanout (one module each)
report     tables with ratios to the baseline
"""
