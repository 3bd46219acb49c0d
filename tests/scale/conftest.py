"""Fixtures of the scale tests (multi-process, cluster, crashes, shutdown, slow consumers, abuse).

- `procs`: registry of child processes; everything still running at the end
  of the test is killed (SIGKILL to its process group), pass or fail.
- `redis_node`: a fresh redis-server on 127.0.0.1 (AOF, appendfsync always)
  with its own data folder, restartable at the same port.
- `start_server(redis_url, *flags)`: `solrace serve` as a child process with
  the short test clocks; returns a `scale_procs.Server` (`.url`, `.kill9()`,
  `.term()`, `.log_text()`).
- `balancer(servers)`: a TCP load balancer (in a thread) over server
  processes (what HAProxy does in deploy/); `.url` is the WebSocket URL
  through it; closed after the test.
"""

from __future__ import annotations

import pytest
from scale_procs import Procs, RedisNode, Server, TcpBalancer


@pytest.fixture
def procs():
    registry = Procs()
    try:
        yield registry
    finally:
        registry.cleanup()


@pytest.fixture
def redis_node(procs, tmp_path) -> RedisNode:
    return RedisNode(procs, tmp_path / "redis", appendfsync="always").start()


@pytest.fixture
def start_server(procs, tmp_path):
    def start(redis_url: str, *flags: str, **kw) -> Server:
        return Server(procs, redis_url, tmp_path, *flags, **kw)

    return start


@pytest.fixture
def balancer():
    made: list[TcpBalancer] = []

    def make(servers) -> TcpBalancer:
        b = TcpBalancer([("127.0.0.1", s.port) for s in servers]).start()
        made.append(b)
        return b

    try:
        yield make
    finally:
        for b in made:
            b.close()
