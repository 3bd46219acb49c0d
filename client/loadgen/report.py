"""Print a bench result (the dict of run.py) as tables with ratios to the baseline."""

from __future__ import annotations

from typing import Any


def _r(a: float | None, b: float | None) -> str:
    if a is None or b in (None, 0):
        return "—"
    return f"{a / b:.2f}×"


def _f(x: object, unit: str = "") -> str:
    if x is None:
        return "—"
    if isinstance(x, float):
        text = f"{x:,.1f}" if abs(x) >= 100 else f"{x:.3g}" if abs(x) < 10 else f"{x:.1f}"
    else:
        text = f"{x:,}" if isinstance(x, int) else str(x)
    return f"{text}{unit}"


def _table(rows: list[tuple[str, Any, Any, str]]) -> str:
    head = ("figure", "server", "echo baseline", "ratio")
    cells = [head] + [(a, _f(b), _f(c), d) for a, b, c, d in rows]
    w = [max(len(r[i]) for r in cells) for i in range(4)]
    out = []
    for k, r in enumerate(cells):
        out.append("  ".join(r[i].ljust(w[i]) if i == 0 else r[i].rjust(w[i]) for i in range(4)))
        if k == 0:
            out.append("  ".join("-" * w[i] for i in range(4)))
    return "\n".join(out)


def _lat_rows(tag: str, s: dict[str, Any], e: dict[str, Any]) -> list[tuple[str, Any, Any, str]]:
    rows = []
    for q in ("p50_ms", "p99_ms", "p999_ms"):
        rows.append((f"{tag} move→ack {q[:-3]} (ms)", s["ack"][q], e["ack"][q], _r(s["ack"][q], e["ack"][q])))
    for q in ("p50_ms", "p99_ms", "p999_ms"):
        rows.append(
            (
                f"{tag} move→rival progress {q[:-3]} (ms)",
                s["rival"][q],
                e["ack"][q],
                _r(s["rival"][q], e["ack"][q]),
            )
        )
    return rows


def render(res: dict[str, Any]) -> str:
    mode = res["mode"]
    if mode == "moves":
        return _moves(res)
    if mode == "idle":
        return _idle(res)
    return _fanout(res)


def _redis_section(res: dict[str, Any]) -> str:
    """Redis CPU per move beside the minimal scripted call on the same redis-server, and
    `INFO commandstats` per move (capacity phase)."""
    out = []
    for tag, srv, base in (
        ("capacity", res["server_capacity"], res.get("script_capacity")),
        (f"@{res['latency_rate']:.0f}/s", res["server_latency"], res.get("script_latency")),
    ):
        if base is None:
            continue
        move = srv["cpu_us_per_op"].get("redis-server")
        call = base["cpu_us_per_op"].get("redis-server")
        out.append(
            f"{tag}: redis-server CPU {_f(move)} µs/move vs {_f(call)} µs per minimal scripted call "
            f"[{res.get('redis_baseline_name', 'call')}] "
            f"({base['ops_per_s']:,.0f} calls/s): {_r(move, call)} (target ≤ 2×)"
        )
    stats = res["server_capacity"].get("commandstats_per_op")
    if stats:
        out.append("capacity: Redis INFO commandstats per move (calls, µs inside the command):")
        for k, v in list(stats.items())[:12]:
            out.append(f"  {k:<12} {v['calls']:>7.3f} calls  {v['usec']:>7.2f} µs")
    base = res.get("script_capacity", {}).get("commandstats_per_op")
    if base:
        ev = base.get("evalsha")
        if ev:
            out.append(f"  (minimal scripted call: evalsha {ev['usec']:.2f} µs inside the command per call)")
    return ("\n\n" + "\n".join(out)) if out else ""


def _moves(res: dict[str, Any]) -> str:
    sc, ec = res["server_capacity"], res["echo_capacity"]
    sl, el = res["server_latency"], res["echo_latency"]
    srv_cpu = sc["cpu_us_per_op"].get("server")
    red_cpu = sc["cpu_us_per_op"].get("redis-server")
    echo_cpu = ec["cpu_us_per_op"].get("echo")
    rows = [
        (
            "capacity: ops/s (moves | echoes)",
            sc["ops_per_s"],
            ec["ops_per_s"],
            _r(sc["ops_per_s"], ec["ops_per_s"]),
        ),
        ("capacity: server CPU µs/op", srv_cpu, echo_cpu, _r(srv_cpu, echo_cpu)),
        ("capacity: redis-server CPU µs/op", red_cpu, None, "—"),
        (
            "capacity: server+redis CPU µs/op",
            sc.get("cpu_us_per_op_total"),
            echo_cpu,
            _r(sc.get("cpu_us_per_op_total"), echo_cpu),
        ),
        (
            "capacity: server read+write syscalls/op",
            sc["syscalls_per_op"].get("server"),
            ec["syscalls_per_op"].get("echo"),
            _r(sc["syscalls_per_op"].get("server"), ec["syscalls_per_op"].get("echo")),
        ),
        (
            "capacity: server core share",
            sc["cpu_core_share"].get("server"),
            ec["cpu_core_share"].get("echo"),
            "—",
        ),
        (
            "capacity: server waited for a CPU (share of time)",
            sc.get("runq_wait_share", {}).get("server"),
            ec.get("runq_wait_share", {}).get("echo"),
            "—",
        ),
        (
            "capacity: machine busy (cores, all processes)",
            sc["machine_busy_cores"],
            ec["machine_busy_cores"],
            "—",
        ),
        ("capacity: generator core share", sc["generator_core_share"], ec["generator_core_share"], "—"),
        (
            "capacity: generator CPU µs/op (this process)",
            sc.get("generator_cpu_us_per_op"),
            ec.get("generator_cpu_us_per_op"),
            _r(sc.get("generator_cpu_us_per_op"), ec.get("generator_cpu_us_per_op")),
        ),
        (
            "capacity: move mix, draws / full legal_moves() share",
            f"{sc.get('draw_share')} / {sc.get('full_legal_share')}",
            None,
            "—",
        ),
        (
            "capacity: move→ack p50 (ms)",
            sc["ack"]["p50_ms"],
            ec["ack"]["p50_ms"],
            _r(sc["ack"]["p50_ms"], ec["ack"]["p50_ms"]),
        ),
        ("capacity: errors", sum(sc["errors"].values()), sum(ec["errors"].values()), "—"),
        (
            f"@{res['latency_rate']:.0f}/s: ops/s",
            sl["ops_per_s"],
            el["ops_per_s"],
            _r(sl["ops_per_s"], el["ops_per_s"]),
        ),
    ]
    rows += _lat_rows(f"@{res['latency_rate']:.0f}/s:", sl, el)
    rows += [
        (
            f"@{res['latency_rate']:.0f}/s: server CPU µs/op",
            sl["cpu_us_per_op"].get("server"),
            el["cpu_us_per_op"].get("echo"),
            _r(sl["cpu_us_per_op"].get("server"), el["cpu_us_per_op"].get("echo")),
        ),
        (
            f"@{res['latency_rate']:.0f}/s: server read+write syscalls/op",
            sl["syscalls_per_op"].get("server"),
            el["syscalls_per_op"].get("echo"),
            _r(sl["syscalls_per_op"].get("server"), el["syscalls_per_op"].get("echo")),
        ),
        (
            f"@{res['latency_rate']:.0f}/s: redis-server CPU µs/op",
            sl["cpu_us_per_op"].get("redis-server"),
            None,
            "—",
        ),
        (
            f"@{res['latency_rate']:.0f}/s: server waited for a CPU (share)",
            sl.get("runq_wait_share", {}).get("server"),
            el.get("runq_wait_share", {}).get("echo"),
            "—",
        ),
        (
            f"@{res['latency_rate']:.0f}/s: generator CPU µs/op",
            sl.get("generator_cpu_us_per_op"),
            el.get("generator_cpu_us_per_op"),
            _r(sl.get("generator_cpu_us_per_op"), el.get("generator_cpu_us_per_op")),
        ),
        (f"@{res['latency_rate']:.0f}/s: late sends", sl["late_sends"], el["late_sends"], "—"),
        (
            f"@{res['latency_rate']:.0f}/s: errors",
            sum(sl["errors"].values()),
            sum(el["errors"].values()),
            "—",
        ),
    ]
    if "server_latency_own" in res:
        so, eo = res["server_latency_own"], res["echo_latency_own"]
        tag = f"@{res['latency_rate_own']:.0f}/s:"
        rows.append((f"{tag} ops/s", so["ops_per_s"], eo["ops_per_s"], _r(so["ops_per_s"], eo["ops_per_s"])))
        rows += _lat_rows(tag, so, eo)
    rss = res.get("rss", {})
    rows.append(
        (
            "RSS at end (MiB)",
            round(rss.get("server", 0) / 2**20, 1),
            round(rss.get("echo", 0) / 2**20, 1),
            "—",
        )
    )
    if "redis-server" in rss:
        rows.append(("redis-server RSS at end (MiB)", round(rss["redis-server"] / 2**20, 1), None, "—"))
    head = (
        f"moves: {res['races']} races × {res['players']} players = {res['connections']} connections, "
        f"{res['game']}, {res['duration_s']} s per phase, message {res['message_bytes']} B; "
        f"latency phase at {res['latency_rate']:.0f} msg/s ({res['latency_rate_rule']}); "
        f"races played {res.get('races_played')}"
    )
    targets = _moves_targets(res) + _redis_section(res)
    errs = {k: v for k, v in {**sc["errors"], **sl["errors"]}.items()}
    tail = f"server errors by code: {errs}" if errs else "no errors"
    return "\n".join([head, "", _table(rows), "", tail, "", targets])


def _moves_targets(res: dict[str, Any]) -> str:
    sc, ec, sl = res["server_capacity"], res["echo_capacity"], res["server_latency"]
    tput = sc["ops_per_s"] / ec["ops_per_s"] if ec["ops_per_s"] else 0
    s_tot = sc.get("cpu_us_per_op_total")
    e_cpu0 = ec["cpu_us_per_op"].get("echo")
    s_cpu = sc["cpu_us_per_op"].get("server")
    e_cpu = ec["cpu_us_per_op"].get("echo")
    cpu = s_cpu / e_cpu if s_cpu and e_cpu else None
    lines = [
        "targets:",
        f"  throughput ≥ 0.50× echo: {tput:.2f}×  {'MET' if tput >= 0.5 else 'MISSED'}",
        f"  server CPU/op ≤ 2× echo's: {cpu:.2f}×  {'MET' if cpu and cpu <= 2 else 'MISSED'}"
        if cpu
        else "  server CPU/op: —",
    ]
    if s_cpu and e_cpu0:
        lines.append(
            f"  (CPU-bound projection, one core each: server {1e6 / s_cpu:,.0f} moves/s vs echo "
            f"{1e6 / e_cpu0:,.0f}/s = {e_cpu0 / s_cpu:.2f}×; redis-server needs {sc['cpu_us_per_op'].get('redis-server')} "
            f"µs/move besides; server+redis {s_tot} µs/move)"
        )
    p50, p99 = sl["ack"]["p50_ms"], sl["ack"]["p99_ms"]
    if p50 is not None:
        lines.append(
            f"  at {res['latency_rate']:.0f}/s: p50 move→ack ≤ 2 ms: {p50} ms {'MET' if p50 <= 2 else 'MISSED'}; "
            f"p99 ≤ 10 ms: {p99} ms {'MET' if p99 <= 10 else 'MISSED'}"
        )
    return "\n".join(lines)


def _idle(res: dict[str, Any]) -> str:
    s, e = res["server"], res["echo"]
    sb, eb = s["bytes_per_conn"], e["bytes_per_conn"]
    rows = [
        ("connections", s["connections"], e["connections"], "—"),
        ("seconds to open (incl. hello)", s["open_s"], e["open_s"], _r(s["open_s"], e["open_s"])),
        (
            "RSS per connection (bytes)",
            sb.get("server"),
            eb.get("echo"),
            _r(sb.get("server"), eb.get("echo")),
        ),
        (
            "RSS before (MiB)",
            round(s["rss_before"]["server"] / 2**20, 1),
            round(e["rss_before"]["echo"] / 2**20, 1),
            "—",
        ),
        (
            "RSS after (MiB)",
            round(s["rss_after"]["server"] / 2**20, 1),
            round(e["rss_after"]["echo"] / 2**20, 1),
            "—",
        ),
    ]
    if "redis-server" in sb:
        rows.append(("redis-server RSS per player (bytes)", sb["redis-server"], None, "—"))
    ratio = sb.get("server") / eb.get("echo") if eb.get("echo") else None
    verdict = (
        f"target ≤ 1.3× echo's memory per connection: {ratio:.2f}×  {'MET' if ratio <= 1.3 else 'MISSED'}"
        if ratio
        else ""
    )
    return "\n".join(
        [f"idle: {res['connections']} connections (hello, then idle)", "", _table(rows), "", verdict]
    )


def _fanout(res: dict[str, Any]) -> str:
    s, e = res["server"], res["echo"]
    rows = []
    for q in ("p50_ms", "p99_ms", "max_ms"):
        rows.append(
            (
                f"move→last spectator {q[:-3]} (ms)",
                s["to_last"][q],
                e["to_last"][q],
                _r(s["to_last"][q], e["to_last"][q]),
            )
        )
    for q in ("p50_ms", "max_ms"):
        rows.append(
            (
                f"move→first spectator {q[:-3]} (ms)",
                s["to_first"][q],
                e["to_first"][q],
                _r(s["to_first"][q], e["to_first"][q]),
            )
        )
    rows.append(("updates measured", s["updates"], e["updates"], "—"))
    rows.append(("updates not reaching all", s["incomplete"], e["incomplete"], "—"))
    sc = s["cpu_us_per_update"].get("server")
    ec = e["cpu_us_per_update"].get("echo")
    rows.append(("server CPU µs per update", sc, ec, _r(sc, ec)))
    if "redis-server" in s["cpu_us_per_update"]:
        rows.append(("redis-server CPU µs per update", s["cpu_us_per_update"]["redis-server"], None, "—"))
    mx = s["to_last"]["max_ms"]
    p50 = s["to_last"]["p50_ms"]
    verdict = (
        f"target: one update reaches {res['spectators']} spectators in ≤ 50 ms: p50 {p50} ms, max {mx} ms  "
        f"{'MET' if mx is not None and mx <= 50 else 'MISSED' if mx is not None else '—'}"
    )
    return "\n".join(
        [
            f"fanout: {res['spectators']} spectators on one race, {res['update_rate']} moves/s, "
            f"progress message {res.get('message_bytes')} B",
            "",
            _table(rows),
            "",
            verdict,
        ]
    )
