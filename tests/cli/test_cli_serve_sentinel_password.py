"""A Sentinel URL's password never reaches the output of a failed start (docs/operations.md §3,
§10: a Redis URL is never logged with its password)."""

from __future__ import annotations

from test_cli_serve_config import error_line, serve


def test_a_sentinel_url_s_password_is_not_shown_when_no_sentinel_answers() -> None:
    done = serve(
        "--port",
        "0",
        "--redis",
        "redis+sentinel://:s3cretPW@127.0.0.1:1/mymaster/0",
        "--redis-timeout-s",
        "2",
    )
    assert done.returncode == 1
    line = error_line(done.stderr)
    assert line.startswith(
        "solrace serve: cannot reach Redis at redis+sentinel://:***@127.0.0.1:1/mymaster/0: "
    )
    assert "s3cretPW" not in done.stderr, done.stderr


def test_a_sentinel_url_naming_no_primary_does_not_show_its_password() -> None:
    done = serve("--port", "0", "--redis", "redis+sentinel://:s3cretPW@127.0.0.1:1", "--redis-timeout-s", "2")
    assert done.returncode != 0
    assert "s3cretPW" not in done.stderr and "***" in done.stderr, done.stderr
