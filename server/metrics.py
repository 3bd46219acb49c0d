"""Process metrics in the Prometheus text format (served at /metrics, docs/operations.md §10).

Plain counters and one histogram, no dependency: incrementing is an
attribute add on the hot path, rendering happens only when scraped.
Every family has its `# HELP` and `# TYPE` lines, also while it has no
sample yet. The process gauges use the names of Prometheus' own client
libraries (`process_*`), so that stock dashboards read them; the ones
that come from /proc are left out where there is no /proc.
"""

from __future__ import annotations

import bisect
import os
import resource
from collections import Counter

from protocol.messages import RaceStatus
from protocol.version import software_version

# Move latency (frame received -> ack written), seconds.
LATENCY_BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0)

PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")


class Histogram:
    __slots__ = ("bounds", "counts", "total", "count")

    def __init__(self, bounds: tuple[float, ...]) -> None:
        self.bounds = bounds
        self.counts = [0] * (len(bounds) + 1)
        self.total = 0.0
        self.count = 0

    def observe(self, value: float) -> None:
        self.counts[bisect.bisect_left(self.bounds, value)] += 1
        self.total += value
        self.count += 1

    def samples(self, name: str) -> list[str]:
        out = []
        acc = 0
        for bound, c in zip(self.bounds, self.counts):
            acc += c
            out.append(f'{name}_bucket{{le="{bound}"}} {acc}')
        out.append(f'{name}_bucket{{le="+Inf"}} {self.count}')
        out.append(f"{name}_sum {self.total:.6f}")
        out.append(f"{name}_count {self.count}")
        return out


def family(name: str, kind: str, help_text: str, samples: list[str]) -> list[str]:
    return [f"# HELP {name} {help_text}", f"# TYPE {name} {kind}", *samples]


def open_fds() -> int | None:
    """Open file descriptors of this process (every socket is one); None without /proc."""
    try:
        return len(os.listdir("/proc/self/fd"))
    except OSError:
        return None


def resident_memory_bytes() -> int | None:
    """Resident set size (the second field of /proc/self/statm, in pages); None without /proc."""
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * PAGE_SIZE
    except (OSError, IndexError, ValueError):
        return None


def process_families() -> list[str]:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    lines = family(
        "process_cpu_seconds_total",
        "counter",
        "User and system CPU time of this process, seconds.",
        [f"process_cpu_seconds_total {usage.ru_utime + usage.ru_stime:.3f}"],
    )
    lines += family(
        "process_max_fds",
        "gauge",
        "The open-files limit of this process (soft RLIMIT_NOFILE).",
        [f"process_max_fds {resource.getrlimit(resource.RLIMIT_NOFILE)[0]}"],
    )
    fds = open_fds()
    if fds is not None:
        lines += family(
            "process_open_fds",
            "gauge",
            "Open file descriptors (sockets included).",
            [f"process_open_fds {fds}"],
        )
    rss = resident_memory_bytes()
    if rss is not None:
        lines += family(
            "process_resident_memory_bytes",
            "gauge",
            "Resident memory size, bytes.",
            [f"process_resident_memory_bytes {rss}"],
        )
    return lines


class Metrics:
    def __init__(self) -> None:
        self.connections = 0  # open websocket connections (gauge)
        self.connections_total = 0
        self.moves_accepted = 0
        self.moves_refused: Counter[str] = Counter()  # by error code / rules reason
        self.messages_in = 0
        self.errors: Counter[str] = Counter()  # error replies by code
        self.closes: Counter[int] = Counter()  # closes we initiated, by code
        self.accept_refused: Counter[str] = Counter()  # sockets dropped at accept, by limit
        self.races_created = 0
        self.races_finished = 0
        self.lobbies_released = 0  # public lobbies emptied because nobody waited (handlers/presence.py)
        self.refused_origin = 0  # WebSocket upgrades from another site's page (net/http.py)
        self.move_latency = Histogram(LATENCY_BUCKETS)
        self.version = software_version()

    def render(self, races_by_status: dict[str, int] | None) -> str:
        """The whole text; `races_by_status` None: Redis did not answer the count in time, so
        `solrace_races` is left out (a gap, not a false 0) and `solrace_redis_up` is 0."""
        lines = family(
            "solrace_build_info",
            "gauge",
            "Always 1; the software version in its label.",
            [f'solrace_build_info{{version="{self.version}"}} 1'],
        )
        lines += family(
            "solrace_connections",
            "gauge",
            "Open websocket connections.",
            [f"solrace_connections {self.connections}"],
        )
        lines += family(
            "solrace_connections_total",
            "counter",
            "Websocket connections opened.",
            [f"solrace_connections_total {self.connections_total}"],
        )
        lines += family(
            "solrace_redis_up",
            "gauge",
            "1 when Redis answered this scrape's race count in time, else 0.",
            [f"solrace_redis_up {0 if races_by_status is None else 1}"],
        )
        if races_by_status is not None:
            lines += family(
                "solrace_races",
                "gauge",
                "Races by status (whole cluster, from Redis).",
                [
                    f'solrace_races{{status="{status}"}} {races_by_status.get(status, 0)}'
                    for status in (RaceStatus.LOBBY, RaceStatus.COUNTDOWN, RaceStatus.RUNNING)
                ],
            )
        lines += family(
            "solrace_races_created_total",
            "counter",
            "Races created on this process.",
            [f"solrace_races_created_total {self.races_created}"],
        )
        lines += family(
            "solrace_races_finished_total",
            "counter",
            "Races finished on this process.",
            [f"solrace_races_finished_total {self.races_finished}"],
        )
        lines += family(
            "solrace_lobbies_released_total",
            "counter",
            "Public lobbies emptied on this process because none of their people was connected.",
            [f"solrace_lobbies_released_total {self.lobbies_released}"],
        )
        lines += family(
            "solrace_ws_origin_refused_total",
            "counter",
            "WebSocket upgrades refused (403) for coming from another site's page (--allowed-origins).",
            [f"solrace_ws_origin_refused_total {self.refused_origin}"],
        )
        lines += family(
            "solrace_messages_total",
            "counter",
            "Websocket data frames received from clients.",
            [f"solrace_messages_total {self.messages_in}"],
        )
        moves = [f'solrace_moves_total{{result="accepted",reason=""}} {self.moves_accepted}']
        moves += [
            f'solrace_moves_total{{result="refused",reason="{reason}"}} {c}'
            for reason, c in sorted(self.moves_refused.items())
        ]
        lines += family("solrace_moves_total", "counter", "Moves accepted and refused (by reason).", moves)
        lines += family(
            "solrace_errors_total",
            "counter",
            "Error replies sent, by error code.",
            [f'solrace_errors_total{{code="{code}"}} {c}' for code, c in sorted(self.errors.items())],
        )
        lines += family(
            "solrace_closes_total",
            "counter",
            "Websocket closes this server initiated, by close code.",
            [f'solrace_closes_total{{code="{code}"}} {c}' for code, c in sorted(self.closes.items())],
        )
        lines += family(
            "solrace_accept_refused_total",
            "counter",
            "TCP connections dropped at accept, unread, by the limit they met "
            "(address: MAX_CONN_PER_ADDR + --max-pending-per-addr; total: --max-connections).",
            [
                f'solrace_accept_refused_total{{limit="{limit}"}} {self.accept_refused[limit]}'
                for limit in ("address", "total")
            ],
        )
        lines += family(
            "solrace_move_latency_seconds",
            "histogram",
            "Move frame received to ack written, seconds.",
            self.move_latency.samples("solrace_move_latency_seconds"),
        )
        lines += process_families()
        return "\n".join(lines) + "\n"
