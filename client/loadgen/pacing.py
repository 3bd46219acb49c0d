"""How the load generators send: closed or open loop, and what they record.

Every generator (the bots of `movegen`, the echo connections of `echogen`,
the scripted Redis calls of `scriptgen`) is a set of senders with one
message in flight each, driven by the same two loops:

* **closed loop** (capacity): a sender sends its next message as soon as the
  reply to the previous one arrives; with enough senders the server is
  saturated and completed messages/s is its capacity.
* **open loop** (latency): every sender has a fixed schedule (`rate`
  messages/s, random phase). A reply's latency is measured from the message's
  *intended* send time, so a slow server cannot hide its latency by slowing
  the generator down (coordinated omission): when the reply to the previous
  message has not arrived when the next is due, the due time is kept and the
  message goes out the moment the reply arrives, its latency still counted
  from the due time.

`Sender` holds one sender's share of that (in-flight time, owed due times,
the open-loop timer); `Generator` switches all its senders between the loops.
"""

from __future__ import annotations

import asyncio
import random
import time
from array import array
from collections import deque
from collections.abc import Sequence

now = time.perf_counter


class Recorder:
    """Latency samples (seconds) and counters of one measurement window."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.on = False
        self.t0 = self.t1 = 0.0
        self.ack = array("d")
        self.rival = array("d")
        self.done = 0  # ops completed inside the window
        self.sent = 0
        self.errors: dict[str, int] = {}
        self.late_sends = 0  # sends that went out after their due time (server behind schedule)
        self.draws = 0  # of `sent`: draws (the rest are card moves); the move mix
        self.full_legal = (
            0  # moves sent that needed a full legal_moves() (the rest: a cached candidate, checked)
        )

    def start(self) -> None:
        self.reset()
        self.on = True
        self.t0 = now()

    def stop(self) -> None:
        self.on = False
        self.t1 = now()

    def error(self, code: str) -> None:
        self.errors[code] = self.errors.get(code, 0) + 1


class Mode:
    """How senders send right now: idle, closed loop, or open loop at `per_bot` messages/s."""

    def __init__(self) -> None:
        self.kind = "idle"
        self.per_bot = 0.0


class Sender:
    """One sender's pacing: the message in flight, the due times owed, the open-loop timer.

    A subclass says how to send one message (`send_one`) and, where it has
    them, when it may not send (`can_send`) or must hold back (`held`).
    """

    __slots__ = ("rec", "mode", "rng", "inflight", "owed", "timer", "due")

    def __init__(self, rec: Recorder, mode: Mode, seed: int) -> None:
        self.rec = rec
        self.mode = mode
        self.rng = random.Random(seed)
        self.inflight: float | None = None  # intended time of the message awaiting its reply
        self.owed: deque[float] = deque()  # due times that passed while a message was in flight
        self.timer: asyncio.TimerHandle | None = None
        self.due = 0.0

    def send_one(self, intended: float) -> None:
        """Send the next message; its latency counts from `intended`."""
        raise NotImplementedError

    def can_send(self) -> bool:
        """False while this sender has nothing to send (a bot whose game is over)."""
        return True

    def held(self) -> bool:
        """True while a due message must wait although nothing is in flight."""
        return False

    def replied(self) -> None:
        """The reply to the message in flight arrived: record its latency."""
        t = now()
        intended = self.inflight
        self.inflight = None
        rec = self.rec
        if rec.on and intended is not None:
            rec.ack.append(t - intended)
            rec.done += 1

    def send_next(self) -> None:
        """After a reply: closed loop, send at once; open loop, send a due time owed."""
        kind = self.mode.kind
        if kind == "closed":
            self.send_one(now())
        elif kind == "open" and self.owed:
            intended = self.owed.popleft()
            if self.rec.on:
                self.rec.late_sends += 1
            self.send_one(intended)

    def kick(self) -> None:
        """Closed loop: start sending (if idle)."""
        if self.inflight is None and self.can_send():
            self.send_one(now())

    def arm(self, start: float) -> None:
        """Open loop: first due time at `start` + a random phase, then every 1/rate."""
        if not self.can_send():
            return
        interval = 1.0 / self.mode.per_bot
        self.due = start + self.rng.random() * interval
        self.owed.clear()
        self._schedule()

    def _schedule(self) -> None:
        loop = asyncio.get_running_loop()
        self.timer = loop.call_later(max(0.0, self.due - now()), self.tick)

    def tick(self) -> None:
        self.timer = None
        if self.mode.kind != "open" or not self.can_send():
            return
        due = self.due
        if self.inflight is None and not self.owed and not self.held():
            self.send_one(due)
        else:
            self.owed.append(due)
        self.due = due + 1.0 / self.mode.per_bot
        self._schedule()

    def stop_timer(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None


class Generator:
    """A set of senders sharing one recorder and one mode."""

    def __init__(self) -> None:
        self.rec = Recorder()
        self.mode = Mode()

    def senders(self) -> Sequence[Sender]:
        raise NotImplementedError

    def set_closed(self) -> None:
        self.mode.kind = "closed"
        for s in self.senders():
            s.kick()

    def set_open(self, total_rate: float) -> None:
        self.mode.kind = "open"
        senders = self.senders()
        self.mode.per_bot = total_rate / max(1, len(senders))
        t = now()
        for s in senders:
            s.arm(t)

    async def quiesce(self, timeout: float = 10.0) -> None:
        """Stop sending and wait (at most `timeout` s) for the replies still in flight."""
        self.mode.kind = "idle"
        senders = self.senders()
        for s in senders:
            s.owed.clear()
            s.stop_timer()
        end = now() + timeout
        while now() < end and any(s.inflight is not None for s in senders):
            await asyncio.sleep(0.02)
