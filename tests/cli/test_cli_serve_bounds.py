"""`solrace serve` refuses, in one line and before anything is started, what it used to take
and then fail on (the operator audit, docs/operations.md §3): a Redis URL whose port, db or
sentinel service does not parse (a 30-line traceback, exit status 1), and a number past what a
system call, Redis or argon2 takes (a server that started, then failed every WebSocket, claim
or new session). A cluster no node of which answers is the one "cannot reach Redis" line, not
a 66-line traceback. The password of a URL is never said."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_cli_serve import error_line, serve

from server.config import RANGES, Settings

PASSWORD = "s3cretPW"


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("redis://127.0.0.1:notaport/0", "--redis has a port that is not a number 1 to 65535"),
        (f"redis://:{PASSWORD}@127.0.0.1:99999/0", "--redis has a port that is not a number 1 to 65535"),
        ("redis://127.0.0.1:0/0", "--redis has a port that is not a number 1 to 65535"),
        ("redis://127.0.0.1:6379/zero", "--redis has a db that is not a number"),
        (f"redis+cluster://:{PASSWORD}@127.0.0.1:x", "--redis has a port that is not a number 1 to 65535"),
        (
            f"redis+cluster://:{PASSWORD}@127.0.0.1:7000,127.0.0.1:70000",
            "--redis has a port that is not a number 1 to 65535",
        ),
        (f"redis+sentinel://:{PASSWORD}@127.0.0.1:26379", "--redis must name the monitored primary"),
        (f"redis+sentinel://:{PASSWORD}@127.0.0.1:26379/mymaster/x", "--redis has a db that is not a number"),
        (
            "redis+sentinel://127.0.0.1:sentinel/mymaster",
            "--redis has a port that is not a number 1 to 65535",
        ),
        ("unix://", "--redis names no socket"),
    ],
)
def test_a_redis_url_that_does_not_parse_is_refused_in_one_line(
    tmp_path: Path, url: str, message: str
) -> None:
    done = serve("--port", "0", "--data", str(tmp_path / "data"), env={"SOLRACE_REDIS": url})
    assert done.returncode == 2, done.stderr
    line = error_line(done.stderr)
    assert line.startswith(f"solrace serve: {message}"), line
    assert PASSWORD not in done.stderr
    assert not (tmp_path / "data").exists()


@pytest.mark.parametrize(
    "url",
    [
        "redis://127.0.0.1:6379/0",
        "redis://[::1]:6379/0",
        "redis://127.0.0.1",
        "unix:///run/redis.sock?db=1",
        "redis+cluster://:pw@10.0.0.1:7000,10.0.0.2:7000",
        "redis+cluster://[::1]:7000",
        "redis+sentinel://10.0.0.1:26379,10.0.0.2:26379/mymaster/1",
        "redis+sentinel://10.0.0.1/mymaster",
    ],
)
def test_a_redis_url_that_parses_is_taken(url: str) -> None:
    assert Settings(redis=url).redis == url


def test_a_cluster_no_node_of_which_answers_is_one_line() -> None:
    done = serve(
        "--port",
        "0",
        "--redis-timeout-s",
        "2",
        env={"SOLRACE_REDIS": f"redis+cluster://:{PASSWORD}@127.0.0.1:1"},
    )
    assert done.returncode == 1, done.stderr
    line = error_line(done.stderr)
    assert line.startswith("solrace serve: cannot reach Redis at redis+cluster://:***@127.0.0.1:1: "), line
    assert PASSWORD not in done.stderr


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--sndbuf", "2147483648"], "--sndbuf must be 0 to 1073741824, not 2147483648"),
        (
            ["--password-hash-memory-kib", "4294967296"],
            "--password-hash-memory-kib must be 1024 to 4194304, not 4294967296",
        ),
        (["--password-hash-passes", "4294967296"], "--password-hash-passes must be 1 to 100"),
        (["--session-ttl-s", "10000000000000000"], "--session-ttl-s must be 60 to 315360000"),
        (["--fresh-session-ttl-s", "10000000000000000"], "--fresh-session-ttl-s must be 60 to 315360000"),
        (["--lobby-ttl-s", "10000000000000000"], "--lobby-ttl-s must be 60 to 315360000"),
        (["--finished-ttl-s", "10000000000000000"], "--finished-ttl-s must be 60 to 315360000"),
        (["--redis-maxmemory-mb", "9007199254740993"], "--redis-maxmemory-mb must be -1 to 16777216"),
        (["--stream-maxlen", "9223372036854775808"], "--stream-maxlen must be 16 to 1000000"),
        (["--certify-workers", "100000"], "--certify-workers must be 0 to 256"),
    ],
)
def test_a_number_past_what_the_system_redis_or_argon2_takes_is_refused(
    tmp_path: Path, flags: list[str], message: str
) -> None:
    done = serve("--port", "0", *flags, "--data", str(tmp_path / "data"))
    assert done.returncode == 2, done.stderr
    line = error_line(done.stderr)
    assert line.startswith(f"solrace serve: {message}"), line
    assert not (tmp_path / "data").exists()  # refused before the private redis-server started


#: The numeric settings whose value reaches a system call (a socket option, a process start),
#: Redis (an expiry, a count, maxmemory) or argon2: each has a most.
REACHING_OUT = [
    "port",
    "sndbuf",
    "redis_pool",
    "redis_timeout_s",
    "redis_wait_replicas",
    "redis_wait_timeout_ms",
    "redis_maxmemory_mb",
    "session_ttl_s",
    "fresh_session_ttl_s",
    "finished_ttl_s",
    "lobby_ttl_s",
    "lobby_away_ms",
    "stream_maxlen",
    "resync_events",
    "max_list",
    "daily_replay_top",
    "bot_wait_s",
    "password_hash_passes",
    "password_hash_memory_kib",
    "certify_workers",
    "solver_request_workers",
    "bot_workers",
]


@pytest.mark.parametrize("name", REACHING_OUT)
def test_a_setting_that_reaches_the_system_redis_or_argon2_has_a_most(name: str) -> None:
    assert RANGES[name][1] is not None, name


@pytest.mark.parametrize("origins", ["play.example.com", "https://play.example.com/play", "null", "ws://x"])
def test_an_allowed_origin_that_is_no_origin_is_refused(origins: str) -> None:
    # It would never match a browser's Origin: the page it was meant for would get 403.
    with pytest.raises(ValueError, match="--allowed-origins"):
        Settings(allowed_origins=f"https://ok.example.com, {origins}")


def test_allowed_origins_that_are_origins_are_taken() -> None:
    Settings(allowed_origins="https://Play.Example.com/, http://10.0.0.7:8080, http://[::1]:8000")
