"""The three bench modes, each against the race server and the echo baseline in one run.

`moves` (default)  capacity (closed loop) and latency (open loop) of moves
`idle`             memory per idle player (after hello) vs per echo connection
`fanout`           time until the last of S spectators has a progress update

Every mode returns a plain dict (the JSON report); `report.py` prints it.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import time
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Any

from . import procs as P
from .gen import EchoGen, MoveGen, Recorder, decode, encode, now
from .scriptgen import BASELINES, ScriptGen, redis_address
from .wsclient import WSClient, open_ws

#: Where progress lines go (the command prints them to stderr).
Log = Callable[[str], None]
#: One side of a measured pair: (generator, process, start sending, CPU figures to report).
Side = tuple[Any, P.Proc | P.Watched, Callable[[], None], tuple[str, ...]]

SERVER_FLAGS = [
    # The bench is one address with many connections sending far above a
    # human's rate: lift the per-address and per-connection limits, and make
    # countdowns short so finished races are replaced quickly.
    "--max-conn-per-addr",
    "100000",
    "--rate",
    "1000000",
    "--burst",
    "1000000",
    "--countdown-ms",
    "100",
    "--time-limit-max-s",
    "7200",
]


def self_cpu() -> float:
    t = os.times()
    return t.user + t.system


def pct(samples: Sequence[float], q: float) -> float | None:
    if not samples:
        return None
    s = sorted(samples)
    i = min(len(s) - 1, max(0, int(round(q * (len(s) - 1)))))
    return s[i]


def lat_summary(samples: Sequence[float]) -> dict[str, Any]:
    if not samples:
        return {"count": 0, "p50_ms": None, "p99_ms": None, "p999_ms": None, "max_ms": None}
    s = sorted(samples)
    n = len(s)

    def q(x: float) -> float:
        return round(s[min(n - 1, int(x * n))] * 1000, 3)

    return {
        "count": n,
        "p50_ms": q(0.5),
        "p99_ms": q(0.99),
        "p999_ms": q(0.999),
        "max_ms": round(s[-1] * 1000, 3),
    }


def start_profiler(pid: int, out: str, duration: float) -> subprocess.Popen[bytes]:
    """py-spy record attached to `pid` for `duration` s; format from the file name.

    .svg flame graph, .json speedscope, anything else py-spy's raw collapsed
    stacks (one line per stack and its sample count: grep- and sort-friendly).
    """
    import sys
    from pathlib import Path

    spy = Path(sys.executable).with_name("py-spy")
    fmt = "flamegraph" if out.endswith(".svg") else "speedscope" if out.endswith(".json") else "raw"
    return subprocess.Popen(
        [
            str(spy),
            "record",
            "--pid",
            str(pid),
            "--duration",
            str(max(1, int(duration))),
            "--rate",
            "250",
            "--format",
            fmt,
            "--output",
            out,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def commandstats(host: str, port: int) -> dict[str, tuple[int, int]]:
    """Redis `INFO commandstats`: command -> (calls, usec) so far."""
    import redis

    r = redis.Redis(host=host, port=port)
    try:
        info = r.info("commandstats")
    finally:
        r.close()
    return {k.removeprefix("cmdstat_"): (int(v["calls"]), int(v["usec"])) for k, v in info.items()}


async def _window(
    gen: Any,
    proc: P.Proc | P.Watched,
    start: Callable[[], None],
    duration: float,
    warmup: float,
    profile: str = "",
    redis_addr: tuple[str, int] | None = None,
) -> dict[str, Any]:
    """One measured window: start sending, warm up, measure `duration` s, stop and drain; raw deltas.

    With `redis_addr`, also the change of Redis' `INFO commandstats` over the window.
    """
    start()
    await asyncio.sleep(warmup)
    spy = start_profiler(proc.pid, profile, duration) if profile else None
    cs0 = await asyncio.to_thread(commandstats, *redis_addr) if redis_addr else None
    c0 = proc.cpu()
    s0 = proc.syscalls()
    w0 = proc.runq_wait()
    g0 = self_cpu()
    i0 = P.machine_idle_s()
    rec: Recorder = gen.rec
    rec.start()
    await asyncio.sleep(duration)
    rec.stop()
    c1 = proc.cpu()
    s1 = proc.syscalls()
    w1 = proc.runq_wait()
    g1 = self_cpu()
    i1 = P.machine_idle_s()
    cs1 = await asyncio.to_thread(commandstats, *redis_addr) if redis_addr else None
    raw = {
        "wall": rec.t1 - rec.t0,
        "ops": rec.done,
        "sent": rec.sent,
        "late": rec.late_sends,
        "draws": rec.draws,
        "full_legal": rec.full_legal,
        "errors": dict(rec.errors),
        "ack": list(rec.ack),
        "rival": list(rec.rival),
        "cpu": {n: c1[n] - c0[n] for n in c0},
        "sys": {n: s1[n] - s0[n] for n in s0},
        "wait": {n: w1[n] - w0[n] for n in w0},
        "gen": g1 - g0,
        "idle": i1 - i0,
    }
    if cs0 is not None and cs1 is not None:
        raw["commandstats"] = {
            k: (c - cs0.get(k, (0, 0))[0], u - cs0.get(k, (0, 0))[1])
            for k, (c, u) in cs1.items()
            if c != cs0.get(k, (0, 0))[0]
        }
    await gen.quiesce()
    if spy is not None:
        _out, err = await asyncio.to_thread(spy.communicate)
        if spy.returncode:
            print(f"py-spy failed: {err.decode(errors='replace')[-500:]}")
    return raw


def _summary(raws: list[dict[str, Any]], cpu_names: tuple[str, ...]) -> dict[str, Any]:
    """The figures of a phase from its windows (sums; latency samples pooled)."""
    wall = sum(r["wall"] for r in raws)
    ops = sum(r["ops"] for r in raws)
    errors: dict[str, int] = {}
    for r in raws:
        for k, v in r["errors"].items():
            errors[k] = errors.get(k, 0) + v

    def total(key: str) -> dict[str, float]:
        out: dict[str, float] = {}
        for r in raws:
            for n, v in r[key].items():
                out[n] = out.get(n, 0) + v
        return out

    cpu, sysc, wait = total("cpu"), total("sys"), total("wait")
    out: dict[str, Any] = {
        "seconds": round(wall, 3),
        "windows": len(raws),
        "ops": ops,
        "ops_per_s": round(ops / wall, 1) if wall else 0.0,
        "sent": sum(r["sent"] for r in raws),
        "late_sends": sum(r["late"] for r in raws),
        "errors": errors,
        "ack": lat_summary([x for r in raws for x in r["ack"]]),
        "rival": lat_summary([x for r in raws for x in r["rival"]]),
        "cpu_s": {n: round(v, 3) for n, v in cpu.items()},
        "cpu_us_per_op": {n: (round(v / ops * 1e6, 1) if ops else None) for n, v in cpu.items()},
        "cpu_core_share": {n: round(v / wall, 3) for n, v in cpu.items()},
        "runq_wait_share": {n: round(v / wall, 3) for n, v in wait.items()},
        "syscalls_per_op": {n: (round(v / ops, 2) if ops else None) for n, v in sysc.items()},
        "generator_core_share": round(sum(r["gen"] for r in raws) / wall, 3),
        # the load generator's own CPU (this process, all its connections) per completed op
        "generator_cpu_us_per_op": round(sum(r["gen"] for r in raws) / ops * 1e6, 1) if ops else None,
        # the move mix (moves only): share of draws among the moves sent, and of
        # moves that needed a full legal_moves() (the rest: a cached candidate, checked)
        "draw_share": round(sum(r["draws"] for r in raws) / max(1, sum(r["sent"] for r in raws)), 3),
        "full_legal_share": round(
            sum(r["full_legal"] for r in raws) / max(1, sum(r["sent"] for r in raws)), 3
        ),
        "machine_busy_cores": round((os.cpu_count() or 1) - sum(r["idle"] for r in raws) / wall, 2),
    }
    tot = sum(cpu[n] for n in cpu_names if n in cpu)
    out["cpu_us_per_op_total"] = round(tot / ops * 1e6, 1) if ops else None
    if any("commandstats" in r for r in raws):
        # Redis' own accounting per operation: calls and µs of each command (the time
        # inside the command, scripts' inner calls counted under their own names too)
        stats: dict[str, list[int]] = {}
        for r in raws:
            for k, (c, u) in r.get("commandstats", {}).items():
                e = stats.setdefault(k, [0, 0])
                e[0] += c
                e[1] += u
        out["commandstats_per_op"] = {
            k: {"calls": round(c / ops, 3), "usec": round(u / ops, 2)}
            for k, (c, u) in sorted(stats.items(), key=lambda kv: -kv[1][1])
            if ops
        }
    return out


async def measure(
    gen: Any,
    proc: P.Proc,
    start: Callable[[], None],
    duration: float,
    warmup: float,
    cpu_names: tuple[str, ...],
    profile: str = "",
) -> dict[str, Any]:
    """Run one phase: start sending, warm up, measure `duration` s, stop and drain."""
    return _summary([await _window(gen, proc, start, duration, warmup, profile)], cpu_names)


async def measure_pair(
    echo: Side,
    server: Side,
    duration: float,
    warmup: float,
    slices: int,
    profile: str = "",
    script: Side | None = None,
    redis_addr: tuple[str, int] | None = None,
) -> tuple[dict[str, Any], ...]:
    """The same phase for the echo and the server (and the scripted-call baseline on the
    server's Redis when `script` is given), in `slices` alternating windows of
    duration/slices each (echo, server, [script,] echo, ...), so that all meet the same load
    from the rest of this shared machine; each window after the first warms up for at most
    0.5 s. With `redis_addr`, the server's and the baseline's windows also record Redis'
    `INFO commandstats`.

    Each side is (generator, process, start, cpu_names). Returns (echo, server[, script]).
    """
    slices = max(1, slices)
    part = duration / slices
    sides = [echo, server] + ([script] if script is not None else [])
    raws: list[list[dict[str, Any]]] = [[] for _ in sides]
    for k in range(slices):
        w = warmup if k == 0 else min(warmup, 0.5)
        for side, (gen, proc, start, _names) in enumerate(sides):
            prof = profile if (side == 1 and k == 0) else ""
            addr = redis_addr if side >= 1 else None
            raws[side].append(await _window(gen, proc, start, part, w, prof, addr))
    return tuple(_summary(r, s[3]) for r, s in zip(raws, sides))


# ------------------------------------------------------------------------------ moves


async def moves_mode(a: Any, log: Log) -> dict[str, Any]:
    P.raise_nofile(4 * a.races * a.players + 1024)
    echo = P.start_echo()
    server = P.start_server(a.redis, SERVER_FLAGS + list(a.server_arg or []))
    res: dict[str, Any] = {
        "mode": "moves",
        "races": a.races,
        "players": a.players,
        "game": a.game,
        "connections": a.races * a.players,
        "duration_s": a.duration,
        "server_pids": server.pids(),
        "echo_pid": echo.pid,
    }
    try:
        gen = MoveGen(server.host, server.port, a.races, a.players, a.game, seed=a.seed)
        log(f"server {server.host}:{server.port} pids {server.pids()}; echo pid {echo.pid}")
        t = now()
        await gen.setup()
        log(f"{a.races} races x {a.players} players set up in {now() - t:.1f}s")
        payload = gen.sample_frame()
        res["message_bytes"] = len(payload)
        eg = EchoGen(echo.host, echo.port, a.races * a.players, payload, seed=a.seed + 1)
        await eg.setup()
        # The Redis baseline: a minimal scripted call on the server's own redis-server.
        rpid = server.extra.get("redis-server")
        addr = redis_address(rpid or 0, a.redis)
        baseline = a.redis_baseline
        sg = ScriptGen(*addr, a.races * a.players, payload, seed=a.seed + 2, script=BASELINES[baseline])
        await sg.setup()
        rproc = P.Watched({"redis-server": rpid}) if rpid else None
        res["redis_baseline_name"] = baseline
        res["redis_baseline"] = (
            f"EVALSHA of `{BASELINES[baseline].decode()}`, 1 key, 1 argument of the move frame's size; "
            "capacity: at the server's rate of the window before (open loop); latency phase: at that "
            "phase's rate"
        )
        names = ("server", "redis-server")
        slices = a.slices
        res["slices"] = slices

        def script_side(start: Callable[[], None]) -> Side | None:
            return (sg, rproc, start, ("redis-server",)) if rproc is not None else None

        def at_server_rate() -> None:
            # Capacity: the scripted call at the rate the server's window just before reached
            # (open loop), so that Redis meets batches like the server's; closed loop it would
            # run at several times the server's rate, in larger, cheaper batches.
            rec = gen.rec
            sg.set_open(rec.done / (rec.t1 - rec.t0) if rec.t1 > rec.t0 and rec.done else 1000.0)

        log(f"capacity (closed loop): echo, server, scripted call in {slices} alternating windows each…")
        res["echo_capacity"], res["server_capacity"], *base = await measure_pair(
            (eg, echo, eg.set_closed, ("echo",)),
            (gen, server, gen.set_closed, names),
            a.duration,
            a.warmup,
            slices,
            profile=a.profile,
            script=script_side(at_server_rate),
            redis_addr=addr,
        )
        if base:
            res["script_capacity"] = base[0]
        log(_line("echo", res["echo_capacity"]))
        log(_line("server", res["server_capacity"]))
        if base:
            log(_line("scripted call", base[0]))
        rate = a.rate or 0.25 * res["echo_capacity"]["ops_per_s"]
        res["latency_rate"] = round(rate, 1)
        res["latency_rate_rule"] = (
            "given (--rate)" if a.rate else "0.25 x echo capacity (half the 50 % target)"
        )
        log(f"latency at {rate:.0f} msg/s (open loop): echo and server, alternating…")
        res["echo_latency"], res["server_latency"], *base = await measure_pair(
            (eg, echo, lambda: eg.set_open(rate), ("echo",)),
            (gen, server, lambda: gen.set_open(rate), names),
            a.duration,
            a.warmup,
            slices,
            script=script_side(lambda: sg.set_open(rate)),
            redis_addr=addr,
        )
        if base:
            res["script_latency"] = base[0]
        log(_line("echo", res["echo_latency"]))
        log(_line("server", res["server_latency"]))
        own = 0.5 * res["server_capacity"]["ops_per_s"]
        if not a.rate and own < 0.8 * rate:
            log(f"latency at half the server's own capacity, {own:.0f} moves/s: server…")
            res["latency_rate_own"] = round(own, 1)
            res["echo_latency_own"], res["server_latency_own"] = await measure_pair(
                (eg, echo, lambda: eg.set_open(own), ("echo",)),
                (gen, server, lambda: gen.set_open(own), names),
                a.duration,
                a.warmup,
                slices,
            )
            log(_line("server", res["server_latency_own"]))
        res["races_played"] = sum(g.races_played for g in gen.groups)
        res["rss"] = {**server.rss(), "echo": echo.rss()["echo"]}
        eg.close()
        sg.close()
        gen.close()
        await asyncio.sleep(0.3)
    finally:
        server.stop()
        echo.stop()
    return res


def _line(name: str, r: dict[str, Any]) -> str:
    return (
        f"  {name}: {r['ops_per_s']:.0f}/s, ack p50 {r['ack']['p50_ms']} p99 {r['ack']['p99_ms']} ms, "
        f"cpu µs/op {r['cpu_us_per_op']}, generator {r['generator_core_share']:.2f} core "
        f"({r['generator_cpu_us_per_op']} µs/op), "
        f"machine busy {r['machine_busy_cores']} cores, waited for a CPU {r.get('runq_wait_share')}, "
        f"errors {r['errors']}"
    )


# ------------------------------------------------------------------------------ idle


def _close_all(conns: Iterable[WSClient | None]) -> None:
    for ws in conns:
        if ws is not None:
            ws.close()


class _Idle:
    __slots__ = ("ws", "fut")

    def __init__(self) -> None:
        self.ws: WSClient | None = None
        self.fut: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()

    def on_message(self, data: bytes) -> None:
        if not self.fut.done():
            self.fut.set_result(data)


async def _open_idle(
    host: str, port: int, path: str, n: int, first: bytes, concurrency: int = 100
) -> list[_Idle]:
    sem = asyncio.Semaphore(concurrency)
    conns: list[_Idle] = []

    async def one(i: int) -> None:
        async with sem:
            c = _Idle()
            ws = c.ws = await open_ws(host, port, path, on_message=c.on_message, timeout=60)
            ws.send(first)
            await asyncio.wait_for(c.fut, 60)
            conns.append(c)

    await asyncio.gather(*(one(i) for i in range(n)))
    return conns


async def _idle_one(proc: P.Proc, path: str, n: int, first: bytes, settle: float, log: Log) -> dict[str, Any]:
    warm = await _open_idle(proc.host, proc.port, path, 20, first)
    _close_all(c.ws for c in warm)
    await asyncio.sleep(settle)
    r0 = proc.rss()
    t = now()
    conns = await _open_idle(proc.host, proc.port, path, n, first)
    opened = now() - t
    await asyncio.sleep(settle)
    r1 = proc.rss()
    out = {
        "connections": len(conns),
        "open_s": round(opened, 2),
        "rss_before": r0,
        "rss_after": r1,
        "bytes_per_conn": {k: round((r1[k] - r0[k]) / max(1, len(conns))) for k in r0},
    }
    _close_all(c.ws for c in conns)
    await asyncio.sleep(0.2)
    log(f"  {proc.name}: {out['bytes_per_conn']} bytes/connection, opened in {opened:.1f}s")
    return out


async def idle_mode(a: Any, log: Log) -> dict[str, Any]:
    P.raise_nofile(a.conns + 1024)
    echo = P.start_echo()
    server = P.start_server(a.redis, SERVER_FLAGS + list(a.server_arg or []))
    hello = encode({"t": "hello", "v": 1, "name": "idle-bench"})
    res: dict[str, Any] = {"mode": "idle", "connections": a.conns, "message_bytes": len(hello)}
    try:
        log(f"{a.conns} idle connections (hello, then nothing) to the echo server…")
        res["echo"] = await _idle_one(echo, "/", a.conns, hello, a.settle, log)
        log(f"{a.conns} idle players (after hello) to the race server…")
        res["server"] = await _idle_one(server, "/ws", a.conns, hello, a.settle, log)
    finally:
        server.stop()
        echo.stop()
    return res


# ------------------------------------------------------------------------------ fan-out


#: The key of a fan-out update in a watcher's message (None: not an update).
FanKey = Callable[[dict[str, Any]], Hashable | None]


class _Watcher:
    __slots__ = ("ws", "fut", "seen", "key")

    def __init__(self, seen: dict[Any, list[float]], key: FanKey) -> None:
        self.ws: WSClient | None = None
        self.fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.seen = seen
        self.key = key

    def on_message(self, data: bytes) -> None:
        t = now()
        msg = decode(data)
        k = self.key(msg)
        if k is not None:
            e = self.seen.get(k)
            if e is None:
                self.seen[k] = [1, t, t]
            else:
                e[0] += 1
                e[2] = t
        elif not self.fut.done():
            self.fut.set_result(msg)


def _fan_summary(
    sent: dict[Any, float], seen: dict[Any, list[float]], s: int, t0: float, t1: float
) -> dict[str, Any]:
    last: list[float] = []
    first: list[float] = []
    partial = 0
    for k, intended in sent.items():
        if not (t0 <= intended <= t1):
            continue
        e = seen.get(k)
        if e is None or e[0] < s:
            partial += 1
            continue
        first.append(e[1] - intended)
        last.append(e[2] - intended)
    return {
        "updates": len(last),
        "incomplete": partial,
        "to_last": lat_summary(last),
        "to_first": lat_summary(first),
    }


async def fanout_mode(a: Any, log: Log) -> dict[str, Any]:
    S = a.spectators
    P.raise_nofile(S * 2 + 1024)
    echo = P.start_echo()
    server = P.start_server(a.redis, SERVER_FLAGS + list(a.server_arg or []))
    res: dict[str, Any] = {"mode": "fanout", "spectators": S, "update_rate": a.update_rate, "game": a.game}
    try:
        # --- race server: one race of `players` bots, S spectators
        gen = MoveGen(server.host, server.port, 1, a.players, a.game, seed=a.seed)
        await gen.setup()
        race = gen.groups[0].race
        seen: dict[Any, list[float]] = {}

        def key(msg: dict[str, Any]) -> Hashable | None:
            return (msg["player"], msg["n"]) if msg.get("t") == "progress" else None

        watchers = [_Watcher(seen, key) for _ in range(S)]
        sem = asyncio.Semaphore(100)

        async def watch(w: _Watcher, i: int) -> None:
            async with sem:
                ws = w.ws = await open_ws(
                    server.host, server.port, "/ws", on_message=w.on_message, timeout=60
                )
                ws.send(encode({"t": "hello", "v": 1, "name": f"spec-{i}"}))
                await asyncio.wait_for(w.fut, 60)
                w.fut = asyncio.get_running_loop().create_future()
                ws.send(encode({"t": "spectate", "rid": 1, "race": race}))
                await asyncio.wait_for(w.fut, 60)

        t = now()
        await asyncio.gather(*(watch(w, i) for i, w in enumerate(watchers)))
        log(f"{S} spectators on race {race} in {now() - t:.1f}s; moves at {a.update_rate}/s…")
        gen.sent_log = {}
        c0 = server.cpu()
        gen.set_open(a.update_rate)
        t0 = now()
        await asyncio.sleep(a.duration)
        t1 = now()
        await gen.quiesce()
        await asyncio.sleep(0.2)
        c1 = server.cpu()
        r = _fan_summary(gen.sent_log, seen, S, t0, t1)
        moves = len(gen.sent_log)
        r["cpu_us_per_update"] = {n: round((c1[n] - c0[n]) / max(1, moves) * 1e6, 1) for n in c0}
        res["server"] = r
        log(
            f"  server: last spectator p50 {r['to_last']['p50_ms']} ms, max {r['to_last']['max_ms']} ms "
            f"({r['updates']} updates, {r['incomplete']} incomplete)"
        )
        _close_all(w.ws for w in watchers)
        gen.close()
        await asyncio.sleep(0.2)

        # --- echo baseline: S listeners on /fan, one sender, progress-sized messages
        eseen: dict[Any, list[float]] = {}
        probe = encode(
            {
                "t": "progress",
                "race": race,
                "ver": 1234,
                "player": gen.groups[0].bots[0].pid,
                "n": 1234,
                "home": 12,
                "total": 52,
                "status": "playing",
                "at": int(time.time() * 1000),
            }
        )
        res["message_bytes"] = len(probe)
        ewatch = [_Watcher(eseen, lambda msg: msg.get("n")) for _ in range(S)]

        async def ewatch_one(w: _Watcher) -> None:
            async with sem:
                w.ws = await open_ws(echo.host, echo.port, "/fan", on_message=w.on_message, timeout=60)

        await asyncio.gather(*(ewatch_one(w) for w in ewatch))
        sender = await open_ws(echo.host, echo.port, "/fan")
        await asyncio.sleep(0.2)
        esent: dict[Any, float] = {}
        c0 = echo.cpu()
        t0 = now()
        i = 0
        interval = 1.0 / a.update_rate
        due = t0
        while now() - t0 < a.duration:
            i += 1
            esent[i] = due
            base = decode(probe)
            base["n"] = i
            sender.send(encode(base))
            due += interval
            await asyncio.sleep(max(0.0, due - now()))
        t1 = now()
        await asyncio.sleep(0.5)
        c1 = echo.cpu()
        r = _fan_summary(esent, eseen, S, t0, t1)
        r["cpu_us_per_update"] = {n: round((c1[n] - c0[n]) / max(1, i) * 1e6, 1) for n in c0}
        res["echo"] = r
        log(
            f"  echo broadcast: last listener p50 {r['to_last']['p50_ms']} ms, max {r['to_last']['max_ms']} ms"
        )
        sender.close()
        _close_all(w.ws for w in ewatch)
        await asyncio.sleep(0.3)
    finally:
        server.stop()
        echo.stop()
    return res
