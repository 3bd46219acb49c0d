"""The process-wide outbound bound (server/net/backlog.py), with stand-in connections."""

from __future__ import annotations

from server.net.backlog import Backlog


class Stalled:
    def __init__(self, size: int) -> None:
        self.size = size
        self.closed = False

    def backlog(self) -> int:
        return 0 if self.closed else self.size

    def overflow(self) -> None:
        self.closed = True


def test_under_the_bound_nobody_is_closed() -> None:
    b = Backlog(1000)
    conns = [Stalled(300), Stalled(300), Stalled(300)]
    for c in conns:
        b.report(c, c.size)
    assert b.total == 900 and not any(c.closed for c in conns)


def test_stale_figures_are_measured_again_before_closing() -> None:
    b = Backlog(1000)
    drained = Stalled(800)
    b.report(drained, 800)
    drained.size = 0  # its socket caught up since its last report
    slow = Stalled(500)
    b.report(slow, 500)
    assert not slow.closed and not drained.closed
    assert b.total == 500


def test_the_largest_backlogs_are_closed_first() -> None:
    b = Backlog(1000)
    small, big, medium = Stalled(200), Stalled(700), Stalled(400)
    for c in (small, big, medium):
        b.report(c, c.size)
    assert big.closed and not small.closed and not medium.closed
    assert b.total == 600


def test_caught_up_and_gone_connections_leave_the_sum() -> None:
    b = Backlog(1000)
    c, d = Stalled(300), Stalled(300)
    b.report(c, 300)
    b.report(d, 300)
    b.report(c, 0)
    b.forget(d)
    assert b.total == 0 and not b.sizes
