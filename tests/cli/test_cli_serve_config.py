"""`solrace serve` as an operator meets it (the operator audit): a value that would run a
broken server is refused at start in one line; a start that cannot succeed (Redis out of
reach, a damaged AOF) is one line and exit status 1, not a traceback; once running, one log
line says the version, the Redis and every setting changed from its default (no password)."""

from __future__ import annotations

import dataclasses
import os
import re
import signal
from pathlib import Path

import pytest
from cli_procs import started_and_stopped
from test_cli_serve import error_line, serve

from server.config import RANGES, Settings


def test_every_numeric_setting_has_a_range() -> None:
    numeric = {f.name for f in dataclasses.fields(Settings) if type(f.default) in (int, float)}
    assert numeric == set(RANGES)
    for name, (least, most) in RANGES.items():
        default = getattr(Settings(), name)
        assert (least is None or least <= default) and (most is None or default <= most), name


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--session-ttl-s", "0"], "--session-ttl-s must be 60 to 315360000, not 0"),
        (["--max-frame", "0"], "--max-frame must be 256 to 16777216, not 0"),
        (["--spectator-flush-ms", "0"], "--spectator-flush-ms must be 10 to 3600000, not 0"),
        (["--sweep-ms", "0"], "--sweep-ms must be 10 to 3600000, not 0"),
        (["--hello-timeout-s", "0"], "--hello-timeout-s must be 0.1 to 3600, not 0"),
        (["--max-conn-per-addr", "0"], "--max-conn-per-addr must be at least 1, not 0"),
        (["--rate", "-5"], "--rate must be at least 1, not -5"),
        (["--certify-workers", "-1"], "--certify-workers must be 0 to 256, not -1"),
        (["--password-hash-memory-kib", "1"], "--password-hash-memory-kib must be 1024 to 4194304, not 1"),
        (["--redis-timeout-s", "0"], "--redis-timeout-s must be 0.001 to 3600, not 0"),
        (["--hint-wait-s", "0"], "--hint-wait-s must be at least 0.001, not 0"),
        (["--redis-maxmemory-mb", "-2"], "--redis-maxmemory-mb must be -1 to 16777216, not -2"),
        (["--certified-games", "klondike"], "--certified-games: no game klondike"),
        # A default pushed out by another flag: the line says which value is the default.
        (
            ["--time-limit-min-s", "700"],
            "--time-limit-s must lie within --time-limit-min-s..--time-limit-max-s, 700..7200 s, "
            "not 600 (its default: give it too)",
        ),
        (
            ["--time-limit-min-s", "700", "--time-limit-s", "800"],
            "--daily-time-limit-s must lie within --time-limit-min-s..--time-limit-max-s, "
            "700..7200 s, not 600 (its default: give it too)",
        ),
        (
            ["--time-limit-s", "20"],
            "--time-limit-s must lie within --time-limit-min-s..--time-limit-max-s, 30..7200 s, not 20",
        ),
        (["--static", "/nonexistent/folder"], "--static: /nonexistent/folder is not a folder"),
        (["--trusted-proxies", "not-an-ip"], "trusted-proxies"),
        (["--limit-exempt", "300.1.1.1"], "limit-exempt"),
        (["--redis", "foo://x"], "--redis must start with one of redis://"),
        (["--redis", "redis://"], "--redis names no host"),
        (
            [
                "--redis",
                "redis://127.0.0.1:1/0",
                "--redis-wait-replicas",
                "1",
                "--redis-wait-timeout-ms",
                "6000",
            ],
            "--redis-timeout-s (5 s) must be longer than --redis-wait-timeout-ms (6000 ms) with "
            "--redis-wait-replicas (a WAIT holds the move pipe's connection that long)",
        ),
        (["--redis", "rediss://db.example:6380/0"], "--redis: rediss:// (TLS to Redis) is not supported"),
        (["--host", "256.0.0.1"], "--host '256.0.0.1' is neither an address nor a known host name"),
    ],
)
def test_a_value_that_would_break_the_server_is_refused(
    tmp_path: Path, flags: list[str], message: str
) -> None:
    done = serve(*flags, "--data", str(tmp_path / "data"))
    assert done.returncode == 2, done.stderr
    assert error_line(done.stderr).startswith("solrace serve: "), done.stderr
    assert message in error_line(done.stderr)
    assert not (tmp_path / "data").exists()  # refused before the private redis-server started


def test_a_number_that_is_not_finite_is_refused(tmp_path: Path) -> None:
    done = serve("--data", str(tmp_path / "data"), env={"SOLRACE_HINT_WAIT_S": "nan"})
    assert done.returncode == 2
    assert "--hint-wait-s" in error_line(done.stderr)


def test_an_unknown_log_level_is_refused() -> None:
    done = serve("--log-level", "verbose")
    assert done.returncode == 2
    assert "argument --log-level: invalid choice: 'VERBOSE'" in done.stderr


def test_an_unknown_log_level_variable_is_refused(tmp_path: Path) -> None:
    """SOLRACE_LOG_LEVEL=WARN (a common spelling) is refused like SOLRACE_LOG_FORMAT=xml, not taken
    for INFO without a word; lower case is a level."""
    done = serve("--port", "0", "--data", str(tmp_path / "data"), env={"SOLRACE_LOG_LEVEL": "WARN"})
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip() == (
        "solrace serve: SOLRACE_LOG_LEVEL='WARN' is not DEBUG, INFO, WARNING or ERROR"
    )
    assert not (tmp_path / "data").exists()
    done = serve("--port", "-1", env={"SOLRACE_LOG_LEVEL": "warning"})  # refused for the port, not the level
    assert "SOLRACE_LOG_LEVEL" not in done.stderr and "--port" in done.stderr, done.stderr


def test_a_bad_flag_gets_a_short_usage_not_every_flag() -> None:
    done = serve("--log-format", "xml", env={"SOLRACE_LOG_FORMAT": "text"})
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "usage: solrace serve [options]  (every option: solrace serve --help)",
        "solrace serve: error: argument --log-format: invalid choice: 'xml' (choose from 'text', 'json')",
    ]


def test_redis_out_of_reach_is_one_line() -> None:
    done = serve("--port", "0", "--redis", "redis://:s3cretPW@127.0.0.1:1/0", "--redis-timeout-s", "2")
    assert done.returncode == 1
    line = error_line(done.stderr)
    assert line.startswith("solrace serve: cannot reach Redis at redis://:***@127.0.0.1:1/0: "), line
    assert "s3cretPW" not in done.stderr


def test_a_redis_that_refuses_the_url_s_password_is_said_so(tmp_path: Path) -> None:
    """Redis reached but the URL's password refused, or none given where Redis asks for one: the
    line says that, not "cannot reach Redis" (it was reached) with Redis' HELLO jargon."""
    from server.storage.embedded_redis import EmbeddedRedis

    redis = EmbeddedRedis(tmp_path / "redis", appendonly=False, password="the-right-one").start()
    try:
        url = f"redis://127.0.0.1:{redis.port}/0"
        done = serve("--port", "0", "--redis", url, "--bot-workers", "0", "--certify-workers", "0")
        assert done.returncode == 1, done.stderr
        assert error_line(done.stderr) == (
            f"solrace serve: Redis at {url} asks for a password and the URL gives none "
            "(redis://:PASSWORD@HOST:PORT/DB, in SOLRACE_REDIS rather than --redis: process lists "
            "show flags)"
        )
        wrong = f"redis://:wrong-one@127.0.0.1:{redis.port}/0"
        done = serve(
            "--port", "0", "--bot-workers", "0", "--certify-workers", "0", env={"SOLRACE_REDIS": wrong}
        )
        assert done.returncode == 1, done.stderr
        line = error_line(done.stderr)
        assert line.startswith(
            f"solrace serve: Redis at redis://:***@127.0.0.1:{redis.port}/0 refused the password of the URL: "
        ), line
        assert "wrong-one" not in done.stderr
    finally:
        redis.stop()


def test_a_damaged_aof_is_one_line(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "appendonly.aof").write_bytes(b"this is not an append-only file\r\n")
    done = serve("--port", "0", "--data", str(data))
    assert done.returncode == 1
    line = error_line(done.stderr)
    assert f"the private redis-server did not start in {data.resolve()}: " in line, line
    assert "Bad file format reading the append only file" in line and "redis-check-aof" in line


def test_a_damaged_rdb_preamble_is_one_line_with_redis_own_reason(tmp_path: Path) -> None:
    """Every AOF Redis has rewritten (at each doubling, or BGREWRITEAOF) begins with an RDB
    snapshot. Damaged there, redis-server ends its log with redis-check-rdb's report, whose last
    line (`[info] 0 already expired`) was the reason given; redis-check-aof cannot repair it."""
    data = tmp_path / "data"
    data.mkdir()
    # An RDB (version 9, one key k=v) whose CRC64 at the end is wrong.
    rdb = b"REDIS0009\xfa\x09redis-ver\x066.2.14\xfe\x00\xfb\x01\x00\x00\x01k\x01v\xff" + b"\x01" * 8
    (data / "appendonly.aof").write_bytes(rdb)
    done = serve("--port", "0", "--data", str(data))
    assert done.returncode == 1
    line = error_line(done.stderr)
    assert f"the private redis-server did not start in {data.resolve()}: " in line, line
    assert "RDB CRC error" in line and "[info]" not in line, line
    assert "its RDB preamble" in line and "restore" in line, line


def test_the_start_line_names_the_version_the_redis_and_the_changed_settings(tmp_path: Path) -> None:
    env = {**os.environ, "SOLRACE_DAILY_SECRET": "do-not-log-me", "SOLRACE_LOG_LEVEL": "info"}
    env.pop("SOLRACE_LOG_FORMAT", None)
    status, err = started_and_stopped(
        ["serve", "--port", "0", "--data", str(tmp_path / "data"), "--max-list", "50"]
        + ["--bot-workers", "0", "--certify-workers", "0"],
        env,
        "listening on",
        stop=signal.SIGHUP,  # a hang-up stops it as cleanly as SIGTERM
    )
    assert status == 0, err
    assert "Traceback" not in err
    start = [line for line in err.splitlines() if " solrace: solrace " in line]
    assert len(start) == 1, err
    assert re.match(
        r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z INFO solrace: solrace \S+ listening on ws://", start[0]
    )
    assert "Redis private" in start[0]
    assert "max_list=50" in start[0] and "daily_secret=(set)" in start[0] and "do-not-log-me" not in err
    assert "log_level" not in start[0] and "log_format" not in start[0]  # at their defaults
    assert err.rstrip().endswith("INFO solrace: stopped"), err[-500:]


def test_an_aof_cut_short_starts_with_a_warning(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """redis-server drops a cut-off last command to start; the moves in it are gone, and the
    operator hears it in one WARNING line that says so, not only in redis-server's own lines."""
    import logging

    import redis

    from server.storage.embedded_redis import EmbeddedRedis

    data = tmp_path / "data"
    first = EmbeddedRedis(data).start()
    with redis.Redis.from_url(first.url) as r:
        for i in range(20):
            r.set(f"k{i}", "x" * 100)
    first.stop()
    aof = data / "appendonly.aof"
    aof.write_bytes(aof.read_bytes()[:-37])  # the last SET cut in its middle
    with caplog.at_level(logging.WARNING, logger="solrace.redis"):
        again = EmbeddedRedis(data).start()
    try:
        with redis.Redis.from_url(again.url) as r:
            assert r.dbsize() == 19
    finally:
        again.stop()
    said = [
        rec.getMessage() for rec in caplog.records if "dropped a damaged end of its AOF" in rec.getMessage()
    ]
    assert len(said) == 1 and "Truncating the AOF" in said[0], caplog.text


def test_private_redis_settings_given_with_an_external_redis_are_said_to_do_nothing(
    tmp_path: Path, clean_redis: str
) -> None:
    """--redis-fsync and --redis-maxmemory-mb configure the private redis-server only: given
    with --redis they change nothing (the external Redis' configuration decides, §6 and §13),
    which the start says in one WARNING instead of listing them among the settings in force as
    if they applied. Not --data (deploy/Dockerfile sets SOLRACE_DATA for every container)."""
    env = {**os.environ, "SOLRACE_REDIS_FSYNC": "everysec", "SOLRACE_DATA": str(tmp_path / "data")}
    env.pop("SOLRACE_LOG_FORMAT", None)
    status, err = started_and_stopped(
        ["serve", "--port", "0", "--redis", clean_redis, "--redis-maxmemory-mb", "100"]
        + ["--bot-workers", "0", "--certify-workers", "0"],
        env,
        "listening on",
    )
    assert status == 0, err
    warned = [line for line in err.splitlines() if " WARNING solrace: " in line]
    assert len(warned) == 1, err
    assert warned[0].endswith(
        "WARNING solrace: settings of the private redis-server, ignored with --redis (the external "
        "Redis' own configuration decides: docs/operations.md §6, §13): --redis-fsync, "
        "--redis-maxmemory-mb"
    ), warned[0]


def test_secrets_given_as_flags_are_warned_about(tmp_path: Path) -> None:
    """A Redis password in --redis and the daily secret in --daily-secret are on the command line,
    which every local user can list (docs/operations.md §3: "use the variable, not the flag"):
    the start says so in one WARNING each, naming the variable, and never the secret."""
    from server.storage.embedded_redis import EmbeddedRedis

    redis = EmbeddedRedis(tmp_path / "redis", appendonly=False, password="pass-word-1").start()
    env = {k: v for k, v in os.environ.items() if k not in ("SOLRACE_LOG_FORMAT", "SOLRACE_REDIS")}
    try:
        status, err = started_and_stopped(
            ["serve", "--port", "0", "--bot-workers", "0", "--certify-workers", "0"]
            + [
                "--redis",
                f"redis://:pass-word-1@127.0.0.1:{redis.port}/0",
                "--daily-secret",
                "secret-word-2",
            ],
            env,
            "listening on",
        )
    finally:
        redis.stop()
    assert status == 0, err
    assert "pass-word-1" not in err and "secret-word-2" not in err
    warned = [
        line.split(" WARNING solrace: ", 1)[1] for line in err.splitlines() if " WARNING solrace: " in line
    ]
    assert warned == [
        "--redis gives a password on the command line, which every local user can list: "
        "give the URL in SOLRACE_REDIS instead",
        "--daily-secret gives a secret on the command line, which every local user can list: "
        "give it in SOLRACE_DAILY_SECRET instead",
    ], err
