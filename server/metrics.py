"""Process metrics in the Prometheus text format (served at /metrics).

Plain counters and one histogram, no dependency: incrementing is an
attribute add on the hot path, rendering happens only when scraped.
"""

from __future__ import annotations

import bisect
from collections import Counter

from protocol.messages import RaceStatus

# Move latency (frame received -> ack written), seconds.
LATENCY_BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0)


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

    def render(self, name: str) -> list[str]:
        out = [f"# TYPE {name} histogram"]
        acc = 0
        for bound, c in zip(self.bounds, self.counts):
            acc += c
            out.append(f'{name}_bucket{{le="{bound}"}} {acc}')
        out.append(f'{name}_bucket{{le="+Inf"}} {self.count}')
        out.append(f"{name}_sum {self.total:.6f}")
        out.append(f"{name}_count {self.count}")
        return out


class Metrics:
    def __init__(self) -> None:
        self.connections = 0  # open websocket connections (gauge)
        self.connections_total = 0
        self.moves_accepted = 0
        self.moves_refused: Counter[str] = Counter()  # by error code / rules reason
        self.messages_in = 0
        self.errors: Counter[str] = Counter()  # error replies by code
        self.closes: Counter[int] = Counter()  # closes we initiated, by code
        self.races_created = 0
        self.races_finished = 0
        self.move_latency = Histogram(LATENCY_BUCKETS)

    def render(self, races_by_status: dict[str, int]) -> str:
        lines = [
            "# HELP solrace_connections Open websocket connections.",
            "# TYPE solrace_connections gauge",
            f"solrace_connections {self.connections}",
            "# TYPE solrace_connections_total counter",
            f"solrace_connections_total {self.connections_total}",
            "# HELP solrace_races Races by status (whole cluster, from Redis).",
            "# TYPE solrace_races gauge",
        ]
        for status in (RaceStatus.LOBBY, RaceStatus.COUNTDOWN, RaceStatus.RUNNING):
            lines.append(f'solrace_races{{status="{status}"}} {races_by_status.get(status, 0)}')
        lines += [
            "# TYPE solrace_races_created_total counter",
            f"solrace_races_created_total {self.races_created}",
            "# TYPE solrace_races_finished_total counter",
            f"solrace_races_finished_total {self.races_finished}",
            "# TYPE solrace_messages_total counter",
            f"solrace_messages_total {self.messages_in}",
            "# HELP solrace_moves_total Moves accepted and refused (by reason).",
            "# TYPE solrace_moves_total counter",
            f'solrace_moves_total{{result="accepted",reason=""}} {self.moves_accepted}',
        ]
        for reason, c in sorted(self.moves_refused.items()):
            lines.append(f'solrace_moves_total{{result="refused",reason="{reason}"}} {c}')
        lines.append("# TYPE solrace_errors_total counter")
        for code, c in sorted(self.errors.items()):
            lines.append(f'solrace_errors_total{{code="{code}"}} {c}')
        lines.append("# TYPE solrace_closes_total counter")
        for close, c in sorted(self.closes.items()):
            lines.append(f'solrace_closes_total{{code="{close}"}} {c}')
        lines.append("# HELP solrace_move_latency_seconds Move frame received to ack written.")
        lines += self.move_latency.render("solrace_move_latency_seconds")
        return "\n".join(lines) + "\n"
