"""A whole race over a slow, lossy network: 80 ms round trip, 1 % packet loss.

The test makes its own pair of network namespaces joined by one link (see
netns_links.py): `solrace serve` with its private Redis runs in the server
namespace, listening only on the link's address; two players (the client
library, moves chosen by the greedy bot strategy from each player's own
board) run in the client namespace. Each direction of the link delays every
packet 40 ms and drops 1 % of them, so TCP really retransmits.

Checked: the race completes (both players won or finished, `end` ranks
both, no connection was lost); each ack arrives about one round trip after
its move was sent (median between 80 ms and 80 + 120 ms, p99 under 1 s);
nothing is lost or duplicated (each player's acknowledged moves, `n` = 1, 2,
3, … without a gap or a repeat, are exactly the moves of that player in the
race's `replay`, in the same order); and the link did drop packets.

`test_race_over_netem` is the link as the kernel's netem qdisc makes it on a
veth pair. `test_race_over_tun_relay` makes the same link with TUN devices
and a user-space relay (tun_link.py), which needs no netem in the kernel.
Neither skips: when the namespaces, devices or qdisc cannot be made (not
root, no netem in the kernel, …), the test fails and says why.

The figures printed at the end (run with `-s`) are the ones recorded in
docs/operations.md.
"""

from __future__ import annotations

import json
import math
import os
import signal
import statistics
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from netns_links import Link, NetemLink, NetSetupError, TunLink, read_line

ROOT = Path(__file__).resolve().parents[2]
DRIVER = Path(__file__).resolve().parent / "race_driver.py"

DELAY_MS = 40  # each way
LOSS_PERCENT = 1  # each way
RTT_MS = 2 * DELAY_MS
GAME = "racing-aces"  # about 190 moves a player with the greedy strategy
# The ack of a move cannot come back before one round trip; the server's own
# work (the rules, a Redis write) adds a few ms on an idle machine, more on a
# busy one. A lost segment costs TCP a retransmission timeout (200 ms or more):
# that is what the p99 bound allows for.
MEDIAN_BAND_MS = (RTT_MS * 0.99, RTT_MS + 120)
P99_LIMIT_MS = 1000
RACE_TIMEOUT_S = 90

MakeLink = Callable[[type[NetemLink] | type[TunLink]], Link]
ServeIn = Callable[[Link], str]


@pytest.fixture
def make_link() -> Iterator[MakeLink]:
    made: list[Link] = []

    def make(kind: type[NetemLink] | type[TunLink]) -> Link:
        link = kind(DELAY_MS, LOSS_PERCENT)
        made.append(link)
        try:
            return link.create()
        except NetSetupError as exc:
            reason = str(exc)
        pytest.fail(f"cannot make the test network ({link.kind}): {reason}", pytrace=False)

    yield make
    for link in made:
        link.close()


@pytest.fixture
def serve_in(tmp_path: Path) -> Iterator[ServeIn]:
    """Start `solrace serve` inside a link's server namespace; returns its WebSocket URL."""
    procs: list[subprocess.Popen[str]] = []

    def start(link: Link) -> str:
        log = open(tmp_path / "serve.log", "w")  # noqa: SIM115 - closed with the process below
        proc = subprocess.Popen(
            [
                *link.exec_prefix(link.server_ns),
                sys.executable,
                "-m",
                "client.cli",
                "serve",
                "--host",
                link.server_addr,
                "--port",
                "0",
                "--data",
                str(tmp_path / "data"),
                "--countdown-ms",
                "500",
            ],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
            start_new_session=True,  # its private redis-server is in the group: stopped with it
        )
        log.close()
        procs.append(proc)
        line = read_line(proc, 30)  # "solrace listening on ws://ADDR:PORT/ws ..."
        if "ws://" not in line:
            pytest.fail(
                f"solrace serve did not start in {link.server_ns}: {line!r}\n"
                + (tmp_path / "serve.log").read_text()[-3000:],
                pytrace=False,
            )
        return line.split("listening on ", 1)[1].split()[0]

    yield start
    for proc in procs:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(10)


def play_race(link: Link, url: str) -> dict[str, Any]:
    """Two players race through the link (race_driver.py inside the client namespace)."""
    try:
        done = subprocess.run(
            [*link.exec_prefix(link.client_ns), sys.executable, str(DRIVER), "--url", url, "--game", GAME],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=RACE_TIMEOUT_S,
        )
    except subprocess.TimeoutExpired as exc:
        stderr = exc.stderr.decode() if isinstance(exc.stderr, bytes) else exc.stderr or ""
        pytest.fail(f"the race did not end within {RACE_TIMEOUT_S} s:\n{stderr[-4000:]}", pytrace=False)
    if done.returncode != 0:
        pytest.fail(
            f"the race did not complete (exit {done.returncode}):\n{done.stderr[-4000:]}", pytrace=False
        )
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def percentile(sorted_values: list[float], fraction: float) -> float:
    """Nearest-rank percentile of an ascending list."""
    rank = max(1, math.ceil(len(sorted_values) * fraction))
    return sorted_values[rank - 1]


def check_race(link: Link, url: str) -> None:
    result = play_race(link, url)
    retransmits = link.tcp_retransmits()
    counters = link.counters()

    # The race completed: both games ended by a win or a declared finish, and
    # `end` ranked both players; the library never had to reconnect.
    assert result["disconnects"] == 0, result
    players = result["players"]
    assert len(players) == 2
    ranked = {player: status for player, _rank, status in result["ranking"]}
    for p in players:
        assert p["errors"] == [], p["errors"]
        assert p["won"] or p["finished"], p
        assert ranked.get(p["player"]) in ("won", "finished"), result["ranking"]

    # Nothing lost, nothing duplicated: the acks, n = 1, 2, 3, ..., are the
    # replay's moves of that player, in order, each once.
    for p in players:
        acked = p["acks"]
        assert len(acked) > 0, p
        assert [n for n, _move, _ms, _dup in acked] == list(range(1, len(acked) + 1)), p["name"]
        assert not any(dup for _n, _move, _ms, dup in acked), f"{p['name']}: a move was acked as a duplicate"
        assert [move for _n, move, _ms, _dup in acked] == result["replay"][p["player"]], p["name"]

    # Acks arrive about one round trip after the send.
    rtts = sorted(ms for p in players for _n, _move, ms, _dup in p["acks"])
    median = statistics.median(rtts)
    p99 = percentile(rtts, 0.99)
    loss = counters["dropped"] / max(1, counters["packets"])
    server_ms = result["server_move_ms"]
    server_text = "not published" if server_ms is None else f"{server_ms:.2f} ms"
    print(
        f"\n{link.kind}: {DELAY_MS} ms each way, {LOSS_PERCENT} % loss each way: "
        f"{len(rtts)} moves acked in {result['seconds']:.1f} s; send->ack median {median:.1f} ms, "
        f"p90 {percentile(rtts, 0.90):.1f} ms, p99 {p99:.1f} ms, max {rtts[-1]:.1f} ms, "
        f"min {rtts[0]:.1f} ms; link dropped {counters['dropped']} of {counters['packets']} "
        f"packets ({loss:.2%}), TCP retransmitted {retransmits} segments; "
        f"rate-limited {sum(p['rate_limited'] for p in players)}; "
        f"server time per move (mean, /metrics) {server_text}"
    )
    low, high = MEDIAN_BAND_MS
    assert low <= median <= high, f"median ack {median:.1f} ms outside [{low:.0f}, {high:.0f}] ms"
    assert p99 < P99_LIMIT_MS, f"p99 ack {p99:.1f} ms"
    assert rtts[0] >= RTT_MS * 0.99, f"an ack after {rtts[0]:.1f} ms: the link is not delaying"

    # The link really lost packets, at about the rate asked for.
    assert counters["dropped"] > 0, counters
    assert loss < 3 * LOSS_PERCENT / 100, counters
    assert retransmits > 0, "TCP never retransmitted: the losses missed the race's connections"


# The kernel's netem qdisc is not on every machine (this project's CI kernel lacks it), so this
# variant runs only when asked for: `make test ARGS="-m netem tests/net"`. Without netem it fails
# with the reason; the relay variant below runs everywhere with the same delay and loss.
@pytest.mark.netem
def test_race_over_netem(make_link: MakeLink, serve_in: ServeIn) -> None:
    link = make_link(NetemLink)
    check_race(link, serve_in(link))


def test_race_over_tun_relay(make_link: MakeLink, serve_in: ServeIn) -> None:
    link = make_link(TunLink)
    check_race(link, serve_in(link))
