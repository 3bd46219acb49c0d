"""Network namespaces joined by a slow, lossy path, made (and removed) by the tests.

Two namespaces per link, a server side and a client side, each with its own
loopback; the only path between them is the link, with addresses in
198.18.0.0/15 (the range reserved for network benchmarks) that exist only on
the link's two devices. Nothing is routed to or from the machine's own
interfaces, so all traffic stays inside what the test made.

- `NetemLink`: a veth pair, one end in each namespace, and
  `tc qdisc add dev END root netem delay D loss L` on both ends (each
  direction is delayed D and loses L: the round trip is 2·D).
- `TunLink`: a TUN device in each namespace and `tun_link.py` relaying
  packets between them with the same delay and loss, for kernels built
  without netem.

Names are unique per run (`sr` + 8 hex digits). `close()` removes
everything and is safe to call after a partial setup; any setup step that
fails raises `NetSetupError` with the command and what it printed.
"""

from __future__ import annotations

import abc
import gzip
import json
import re
import secrets
import select
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


class NetSetupError(RuntimeError):
    """A namespace, device or qdisc could not be made: the reason, in words."""


def ip_tool(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """Run `ip`/`tc` (args[0]); on failure raise NetSetupError with its output."""
    try:
        done = subprocess.run(list(args), capture_output=True, text=True, timeout=30)
    except FileNotFoundError as exc:
        raise NetSetupError(f"{args[0]} is not installed (iproute2): {exc}") from exc
    if check and done.returncode != 0:
        raise NetSetupError(
            f"`{' '.join(args)}` failed (exit {done.returncode}): {(done.stderr or done.stdout).strip()}"
        )
    return done


def kernel_option(name: str) -> str | None:
    """`y`, `m`, `not set` for CONFIG_name in /proc/config.gz, or None if unreadable."""
    try:
        with gzip.open("/proc/config.gz", "rt") as f:
            text = f.read()
    except OSError:
        return None
    found = re.search(rf"^CONFIG_{name}=(\w+)$", text, re.M)
    if found:
        return found.group(1)
    return "not set" if f"# CONFIG_{name} is not set" in text else None


class Link(abc.ABC):
    """Two namespaces and the path between them; see the module doc."""

    kind = "link"

    def __init__(self, delay_ms: float, loss_percent: float) -> None:
        self.delay_ms = delay_ms
        self.loss_percent = loss_percent
        self.tag = "sr" + secrets.token_hex(4)
        self.server_ns = f"{self.tag}-server"
        self.client_ns = f"{self.tag}-client"
        # A /30 picked per run inside 198.18.0.0/15, so that concurrent runs differ.
        third = secrets.randbelow(256)
        fourth = 4 * secrets.randbelow(64)
        self.server_addr = f"198.18.{third}.{fourth + 1}"
        self.client_addr = f"198.18.{third}.{fourth + 2}"
        self._made_ns: list[str] = []

    def _add_namespaces(self) -> None:
        for ns in (self.server_ns, self.client_ns):
            ip_tool("ip", "netns", "add", ns)
            self._made_ns.append(ns)
            ip_tool("ip", "-n", ns, "link", "set", "lo", "up")

    def _address(self, ns: str, dev: str, addr: str, peer: str) -> None:
        ip_tool("ip", "-n", ns, "addr", "add", addr, "peer", f"{peer}/32", "dev", dev)
        ip_tool("ip", "-n", ns, "link", "set", dev, "up")

    def exec_prefix(self, ns: str) -> list[str]:
        """The command prefix that runs a program inside `ns`."""
        return ["ip", "netns", "exec", ns]

    @abc.abstractmethod
    def create(self) -> Link:
        """Make the namespaces and the link; NetSetupError says what failed."""

    @abc.abstractmethod
    def counters(self) -> dict[str, int]:
        """Packets offered to the link and dropped by it, both directions together."""

    def tcp_retransmits(self) -> int:
        """TCP segments retransmitted so far by both namespaces' kernels (RetransSegs)."""
        total = 0
        for ns in (self.server_ns, self.client_ns):
            # /proc/net is the reading process's namespace's: read it from inside.
            text = ip_tool(*self.exec_prefix(ns), "cat", "/proc/net/snmp").stdout
            tcp = [line.split() for line in text.splitlines() if line.startswith("Tcp:")]
            total += int(tcp[1][tcp[0].index("RetransSegs")])
        return total

    def close(self) -> None:
        # Deleting a namespace deletes the devices inside it (a veth pair goes with either end).
        for ns in reversed(self._made_ns):
            ip_tool("ip", "netns", "del", ns, check=False)
        self._made_ns.clear()


class NetemLink(Link):
    """A veth pair with netem on both ends."""

    kind = "netem"

    def __init__(self, delay_ms: float, loss_percent: float) -> None:
        super().__init__(delay_ms, loss_percent)
        self.server_dev = f"{self.tag}s"
        self.client_dev = f"{self.tag}c"

    def create(self) -> NetemLink:
        self._add_namespaces()
        ip_tool(
            "ip",
            "link",
            "add",
            self.server_dev,
            "netns",
            self.server_ns,
            "type",
            "veth",
            "peer",
            "name",
            self.client_dev,
            "netns",
            self.client_ns,
        )
        self._address(self.server_ns, self.server_dev, self.server_addr, self.client_addr)
        self._address(self.client_ns, self.client_dev, self.client_addr, self.server_addr)
        for ns, dev in ((self.server_ns, self.server_dev), (self.client_ns, self.client_dev)):
            try:
                ip_tool(
                    "tc",
                    "-n",
                    ns,
                    "qdisc",
                    "add",
                    "dev",
                    dev,
                    "root",
                    "netem",
                    "delay",
                    f"{self.delay_ms:g}ms",
                    "loss",
                    f"{self.loss_percent:g}%",
                )
            except NetSetupError as exc:
                option = kernel_option("NET_SCH_NETEM")
                raise NetSetupError(
                    f"{exc} -- the running kernel's CONFIG_NET_SCH_NETEM is "
                    f"{option or 'unknown (no /proc/config.gz)'}; netem needs it built in (=y) or "
                    "as a loadable sch_netem module (=m)"
                ) from None
        return self

    def counters(self) -> dict[str, int]:
        packets = dropped = 0
        for ns, dev in ((self.server_ns, self.server_dev), (self.client_ns, self.client_dev)):
            text = ip_tool("tc", "-n", ns, "-s", "qdisc", "show", "dev", dev).stdout
            # "Sent 12345 bytes 67 pkt (dropped 1, overlimits 0 requeues 0)"
            found = re.search(r"Sent \d+ bytes (\d+) pkt \(dropped (\d+)", text)
            if found is None:
                raise NetSetupError(f"no netem counters on {dev}: {text!r}")
            packets += int(found.group(1)) + int(found.group(2))
            dropped += int(found.group(2))
        return {"packets": packets, "dropped": dropped}


class TunLink(Link):
    """A TUN device in each namespace and a user-space relay with delay and loss."""

    kind = "tun relay"

    def __init__(self, delay_ms: float, loss_percent: float) -> None:
        super().__init__(delay_ms, loss_percent)
        self.server_dev = f"{self.tag}s"
        self.client_dev = f"{self.tag}c"
        self.seed = secrets.randbelow(2**32)
        self.relay: subprocess.Popen[str] | None = None
        self._final: dict[str, int] | None = None

    def create(self, ready_timeout: float = 20.0) -> TunLink:
        self._add_namespaces()
        self.relay = subprocess.Popen(
            [
                sys.executable,
                str(HERE / "tun_link.py"),
                "--ns-a",
                self.server_ns,
                "--dev-a",
                self.server_dev,
                "--ns-b",
                self.client_ns,
                "--dev-b",
                self.client_dev,
                "--delay-ms",
                f"{self.delay_ms:g}",
                "--loss",
                f"{self.loss_percent / 100:g}",
                "--seed",
                str(self.seed),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        line = read_line(self.relay, ready_timeout)
        if '"ready"' not in line:
            self.relay.kill()
            _out, err = self.relay.communicate()
            raise NetSetupError(f"the TUN relay did not start: {line.strip()} {err.strip()}")
        self._address(self.server_ns, self.server_dev, self.server_addr, self.client_addr)
        self._address(self.client_ns, self.client_dev, self.client_addr, self.server_addr)
        return self

    def stop_relay(self) -> dict[str, int]:
        """Stop the relay (the link goes down) and return its final counters."""
        if self._final is None:
            assert self.relay is not None
            self.relay.terminate()
            out, err = self.relay.communicate(timeout=10)
            lines = out.strip().splitlines()
            if not lines or "a_to_b" not in lines[-1]:
                raise NetSetupError(f"the TUN relay gave no counters: {out!r} {err!r}")
            both = json.loads(lines[-1])
            self._final = {
                "packets": both["a_to_b"]["packets"] + both["b_to_a"]["packets"],
                "dropped": both["a_to_b"]["dropped"] + both["b_to_a"]["dropped"],
            }
        return self._final

    def counters(self) -> dict[str, int]:
        return self.stop_relay()

    def close(self) -> None:
        if self.relay is not None and self.relay.poll() is None:
            self.relay.kill()
            self.relay.wait(10)
        super().close()


def read_line(proc: subprocess.Popen[str], timeout: float) -> str:
    """The next line of `proc`'s stdout, or "" at EOF or after `timeout` seconds."""
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], timeout)
    return proc.stdout.readline() if ready else ""
