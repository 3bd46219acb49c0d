"""The scale tests' redis-server nodes pick their own ports: a port taken between the pick and
redis-server's bind must not fail the test, nor leave it talking to another process's Redis."""

from __future__ import annotations

import socket

import scale_procs
from scale_procs import RedisNode


def picks(monkeypatch, first: int) -> None:
    """The next port pick returns `first`, the ones after it free ports as usual."""
    real = scale_procs.free_port
    queue = [first]
    monkeypatch.setattr(scale_procs, "free_port", lambda: queue.pop() if queue else real())


def test_a_port_held_by_a_listener_is_given_up_for_another(procs, tmp_path, monkeypatch):
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        taken = holder.getsockname()[1]
        picks(monkeypatch, taken)
        node = RedisNode(procs, tmp_path / "r").start()
        assert node.port != taken
        with node.client() as c:
            assert c.ping()


def test_another_redis_on_the_picked_port_is_not_taken_for_ours(procs, tmp_path, monkeypatch):
    other = RedisNode(procs, tmp_path / "other").start()
    with other.client() as c:
        c.set("whose", "other")
    picks(monkeypatch, other.port)
    node = RedisNode(procs, tmp_path / "ours").start()
    assert node.port != other.port
    assert node.proc is not None
    with node.client() as c:
        assert c.get("whose") is None
        assert int(c.info("server")["process_id"]) == node.proc.pid


def test_a_port_given_by_the_caller_is_kept_and_its_failure_reported(procs, tmp_path):
    other = RedisNode(procs, tmp_path / "other").start()
    node = RedisNode(procs, tmp_path / "ours", port=other.port)
    try:
        node.start(timeout=5)
    except scale_procs.PortTaken as exc:
        assert str(other.port) in str(exc)
    else:
        raise AssertionError("a redis-server started on a port another one holds")
    assert node.port == other.port
