"""The server's estimate of the Redis clock (`Service.now_ms`) comes from the quickest of a few
TIME round trips at start, against the trip's midpoint: taken against the time after the reply,
it ran behind Redis by half a trip (milliseconds on a loaded start), and a time stamped from
it was that much early (as the end follow-up's retry was, server/handlers/clock.py)."""

from __future__ import annotations

from server.service import clock_offset


def test_the_quickest_trip_counts_at_its_midpoint() -> None:
    # local ms before, Redis ms, local ms after: Redis is 500 ms ahead; the trips took 200, 4, 20
    samples = [(1000.0, 1600, 1200.0), (2000.0, 2502, 2004.0), (3000.0, 3510, 3020.0)]
    assert clock_offset(samples) == 500
    assert clock_offset(reversed(samples)) == 500
    assert clock_offset([(10.0, 5, 12.0)]) == -6  # Redis behind: a negative offset
