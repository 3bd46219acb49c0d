"""How many connections a process takes within its open-files limit (server/app.py
`connection_cap`), and the warning an operator reads when the limit is too low."""

from __future__ import annotations

import logging

from server.app import FD_RESERVE, connection_cap
from server.config import Settings


def test_the_cap_is_what_the_open_files_leave_after_redis_and_files() -> None:
    st = Settings(max_connections=0)
    assert connection_cap(st, 100_000) == 100_000 - FD_RESERVE - st.redis_pool


def test_a_limit_leaving_one_connection_says_one_connection(caplog) -> None:
    st = Settings(max_connections=10)
    with caplog.at_level(logging.WARNING, logger="solrace.app"):
        assert connection_cap(st, FD_RESERVE + st.redis_pool + 1) == 1
    said = " ".join(r.getMessage() for r in caplog.records)
    assert "at most 1 connection (" in said, said
