"""The baseline: a bare websockets echo server, as lean as a server can be.

Same stack as the race server (websockets' asyncio API on uvloop, the same
websockets version, compression off, the same max_size and keepalive), and no
work per message but the echo, so every figure of the race server can be
given as a ratio to it.

Paths:
  any path   echo each binary message back to its sender;
  /fan       listeners: a message from any /fan connection is sent to every
             other /fan connection with `websockets.broadcast` (the fan-out
             baseline of spectators).

    python -m client.loadgen.echo [--host 127.0.0.1] [--port 0]

Prints ``echo listening on ws://HOST:PORT/`` once listening; SIGTERM stops it.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys

from websockets.asyncio.server import ServerConnection, broadcast, serve

FAN: set[ServerConnection] = set()


async def handler(ws: ServerConnection) -> None:
    path = ws.request.path if ws.request is not None else "/"
    if path.startswith("/fan"):
        FAN.add(ws)
        try:
            async for msg in ws:
                others = [c for c in FAN if c is not ws]
                broadcast(others, msg)
        finally:
            FAN.discard(ws)
        return
    send = ws.send
    async for msg in ws:
        await send(msg)


async def main(host: str, port: int, max_size: int) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    async with serve(
        handler, host, port, compression=None, max_size=max_size, ping_interval=20, ping_timeout=20
    ) as server:
        real = server.sockets[0].getsockname()[1]
        print(f"echo listening on ws://{host}:{real}/", flush=True)
        await stop.wait()


def run(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m client.loadgen.echo", description=__doc__.split("\n")[0])
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--max-size", type=int, default=4096)
    a = p.parse_args(argv)
    import uvloop

    uvloop.run(main(a.host, a.port, a.max_size))
    return 0


if __name__ == "__main__":
    sys.exit(run())
