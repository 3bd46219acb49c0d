"""`solrace bench moves`: capacity (closed loop) and latency (open loop) of moves.

The server's bots, the echo baseline and the scripted Redis call run in
alternating windows of each phase (`measure.measure_pair`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from . import procs as P
from .echogen import EchoGen
from .measure import Log, Side, measure_pair
from .movegen import MoveGen
from .pacing import now
from .scriptgen import BASELINES, ScriptGen, redis_url


async def moves_mode(a: Any, log: Log) -> dict[str, Any]:
    P.raise_nofile(4 * a.races * a.players + 1024)
    echo = P.start_echo()
    server = P.start_server(a.redis, P.SERVER_FLAGS + list(a.server_arg or []))
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
        addr = redis_url(rpid or 0, a.redis)
        baseline = a.redis_baseline
        sg = ScriptGen(addr, a.races * a.players, payload, seed=a.seed + 2, script=BASELINES[baseline])
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
            redis_url=addr,
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
            redis_url=addr,
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
