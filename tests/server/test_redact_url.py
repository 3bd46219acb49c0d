"""A Redis URL in the log never carries its password (the operator audit found
`redis connection lost (redis://:s3cretPW@...)` in a server's log)."""

from __future__ import annotations

import pytest

from server.storage.resp import Pipe, redact_url


@pytest.mark.parametrize(
    ("url", "logged"),
    [
        ("redis://:s3cretPW@127.0.0.1:6379/0", "redis://:***@127.0.0.1:6379/0"),
        ("redis://alice:pw@db.local:6380/2", "redis://alice:***@db.local:6380/2"),
        ("redis://alice@db.local/0", "redis://alice@db.local/0"),
        ("redis://127.0.0.1:6379/0", "redis://127.0.0.1:6379/0"),
        (
            "redis+cluster://:pw@10.0.0.1:7000,10.0.0.2:7000",
            "redis+cluster://:***@10.0.0.1:7000,10.0.0.2:7000",
        ),
        ("rediss://db/0?password=pw&ssl_cert_reqs=none", "rediss://db/0?password=***&ssl_cert_reqs=none"),
        ("unix:///run/redis.sock?password=pw", "unix:///run/redis.sock?password=***"),
        ("redis://:Zm9v/YmFy@db.local:6379/0", "redis://:***@db.local:6379/0"),  # a '/' in it
        ("redis+sentinel://:a/b@s1:26379,s2:26379/main/0", "redis+sentinel://:***@s1:26379,s2:26379/main/0"),
    ],
)
def test_a_logged_url_has_no_password(url: str, logged: str) -> None:
    assert redact_url(url) == logged


def test_the_move_pipe_logs_its_url_without_the_password() -> None:
    assert Pipe("redis://:s3cretPW@127.0.0.1:1/0").where == "redis://:***@127.0.0.1:1/0"
