"""A point-to-point link between two network namespaces, with delay and random loss.

Run as a script, as root:

    python tun_link.py --ns-a NS_A --dev-a DEV_A --ns-b NS_B --dev-b DEV_B \\
        --delay-ms 40 --loss 0.01 --seed 7

It creates one TUN device in each namespace (they exist only while this
process runs) and carries every IP packet that one side routes into its
device over to the other side's device, `delay-ms` later, dropping each one
with probability `loss` — what `tc qdisc ... netem delay 40ms loss 1%` on both
ends of a veth pair does, done in user space for kernels built without
netem. The kernels of both namespaces run real TCP over it: lost segments
are retransmitted by TCP, never by this relay. Packets keep their order in
each direction (a fixed delay does not reorder).

Prints one JSON line when both devices exist (`{"ready": true}`), then, on
SIGTERM or SIGINT, the counters of each direction
(`{"a_to_b": {"packets", "dropped", "undeliverable"}, "b_to_a": {...}}`)
and exits. `dropped` counts the packets the loss draw took; `undeliverable`
those the far device refused (it is not up yet while the test configures
the link).
"""

from __future__ import annotations

import argparse
import asyncio
import ctypes
import fcntl
import json
import os
import random
import signal
import struct
import sys
from collections import deque
from dataclasses import dataclass, field

CLONE_NEWNET = 0x40000000
TUNSETIFF = 0x400454CA
IFF_TUN = 0x0001
IFF_NO_PI = 0x1000
MAX_PACKET = 65536


def enter_namespace(name: str) -> None:
    """Make `name` (an `ip netns` namespace) this thread's network namespace."""
    libc = ctypes.CDLL(None, use_errno=True)
    fd = os.open(f"/run/netns/{name}", os.O_RDONLY)
    try:
        if libc.setns(fd, CLONE_NEWNET) != 0:
            err = ctypes.get_errno()
            raise OSError(err, f"setns into {name}: {os.strerror(err)}")
    finally:
        os.close(fd)


def open_tun(device: str) -> int:
    """A new TUN device `device` in the current namespace; returns its fd (non-blocking)."""
    fd = os.open("/dev/net/tun", os.O_RDWR | os.O_NONBLOCK)
    fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", device.encode(), IFF_TUN | IFF_NO_PI))
    return fd


@dataclass
class Direction:
    """One direction of the link: packets read from `src`, written to `dst` when due."""

    src: int
    dst: int
    packets: int = 0
    dropped: int = 0  # by the loss draw
    undeliverable: int = 0  # the other device was not up (while the test sets the link up)
    queue: deque[tuple[float, bytes]] = field(default_factory=deque)

    def counters(self) -> dict[str, int]:
        return {"packets": self.packets, "dropped": self.dropped, "undeliverable": self.undeliverable}


class Relay:
    def __init__(self, a: int, b: int, delay_s: float, loss: float, seed: int) -> None:
        self.delay_s = delay_s
        self.loss = loss
        self.rng = random.Random(seed)
        self.a_to_b = Direction(a, b)
        self.b_to_a = Direction(b, a)

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        for d in (self.a_to_b, self.b_to_a):
            loop.add_reader(d.src, self.receive, d)

    def receive(self, d: Direction) -> None:
        while True:
            try:
                packet = os.read(d.src, MAX_PACKET)
            except BlockingIOError:
                return
            d.packets += 1
            if self.rng.random() < self.loss:
                d.dropped += 1
                continue
            due = self.loop.time() + self.delay_s
            d.queue.append((due, packet))
            self.loop.call_at(due, self.deliver, d)

    def deliver(self, d: Direction) -> None:
        # Every packet due by now, oldest first: the order on the wire is kept.
        now = self.loop.time()
        while d.queue and d.queue[0][0] <= now:
            _due, packet = d.queue.popleft()
            try:
                os.write(d.dst, packet)
            except OSError:
                d.undeliverable += 1  # lost, as on a wire whose far end is down

    def counters(self) -> dict[str, dict[str, int]]:
        return {"a_to_b": self.a_to_b.counters(), "b_to_a": self.b_to_a.counters()}


async def run(relay: Relay) -> None:
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    relay.start(loop)
    print(json.dumps({"ready": True}), flush=True)
    await stop.wait()
    print(json.dumps(relay.counters()), flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="a delaying, lossy link between two namespaces")
    parser.add_argument("--ns-a", required=True)
    parser.add_argument("--dev-a", required=True)
    parser.add_argument("--ns-b", required=True)
    parser.add_argument("--dev-b", required=True)
    parser.add_argument("--delay-ms", type=float, required=True, help="one-way delay")
    parser.add_argument("--loss", type=float, required=True, help="drop probability per packet")
    parser.add_argument("--seed", type=int, required=True)
    args = parser.parse_args(argv)
    enter_namespace(args.ns_a)
    a = open_tun(args.dev_a)
    enter_namespace(args.ns_b)
    b = open_tun(args.dev_b)
    asyncio.run(run(Relay(a, b, args.delay_ms / 1000, args.loss, args.seed)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
