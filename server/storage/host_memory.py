"""How much memory this process may use: what `--redis-maxmemory-mb -1` halves."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path


def _cgroup_limits() -> list[int]:
    """The memory limits of this process's cgroups (v1 and v2) that are set, in bytes."""
    paths = [Path("/sys/fs/cgroup/memory.max"), Path("/sys/fs/cgroup/memory/memory.limit_in_bytes")]
    with contextlib.suppress(OSError):
        for row in Path("/proc/self/cgroup").read_text().splitlines():
            _, controllers, group = row.split(":", 2)
            if controllers == "":
                paths.append(Path("/sys/fs/cgroup") / group.lstrip("/") / "memory.max")
            elif "memory" in controllers.split(","):
                paths.append(Path("/sys/fs/cgroup/memory") / group.lstrip("/") / "memory.limit_in_bytes")
    limits = []
    for path in paths:
        with contextlib.suppress(OSError, ValueError):
            value = int(path.read_text().strip())  # "max": ValueError, no limit
            if 0 < value < 1 << 60:  # cgroup v1 says "no limit" with a number near 2^63
                limits.append(value)
    return limits


def machine_memory_bytes() -> int | None:
    """The memory this process may use: the machine's, or its cgroup's limit if lower."""
    sizes = _cgroup_limits()
    with contextlib.suppress(OSError, ValueError):
        sizes.append(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    return min(sizes) if sizes else None


def auto_maxmemory_mb(setting: int) -> int:
    """The maxmemory (MiB) of --redis-maxmemory-mb: -1 is half of `machine_memory_bytes()`
    (0, no limit, where that is unknown); 0 and more as given."""
    if setting >= 0:
        return setting
    total = machine_memory_bytes()
    return 0 if not total else max(total // 2 // 2**20, 1)
