"""Fixtures of the server tests that run against a real local Redis Cluster
(tests/server/local_cluster.py): one cluster per test module, emptied per test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from local_cluster import LocalCluster


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    with LocalCluster(tmp_path_factory.mktemp("cluster")) as c:
        yield c


@pytest.fixture
def cluster_url(cluster: LocalCluster) -> str:
    return cluster.emptied()
