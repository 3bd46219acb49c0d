"""A real 3-master Redis Cluster on loopback, started once per test module and emptied per test.

Starting a cluster takes seconds; its tests each want an empty one, which FLUSHALL on every
primary gives in milliseconds: tests/server/conftest.py's fixtures `cluster` (one per test
module) and `cluster_url` (emptied for each test).
"""

from __future__ import annotations

import sys
from pathlib import Path
from types import TracebackType

from redis.crc import key_slot

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scale"))
from scale_procs import Procs, RedisNode, start_cluster  # noqa: E402


class LocalCluster:
    def __init__(self, base: Path) -> None:
        self.procs = Procs()
        try:
            self.nodes: list[RedisNode] = start_cluster(self.procs, base)
        except BaseException:
            self.procs.cleanup()
            raise
        self.url = "redis+cluster://" + ",".join(f"127.0.0.1:{n.port}" for n in self.nodes)

    def emptied(self) -> str:
        """FLUSHALL on every primary; the cluster's URL."""
        for n in self.nodes:
            with n.client() as r:
                r.flushall()
        return self.url

    def node_of(self, key: str) -> int:
        """The index (in `nodes`) of the primary that serves `key`'s slot."""
        slot = key_slot(key.encode())
        with self.nodes[0].client() as r:
            for start, end, primary, *_ in r.execute_command("CLUSTER", "SLOTS"):
                if start <= slot <= end:
                    return next(i for i, n in enumerate(self.nodes) if n.port == int(primary[1]))
        raise AssertionError(f"slot {slot} not covered")

    def __enter__(self) -> LocalCluster:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.procs.cleanup()
