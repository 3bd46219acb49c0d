"""Redis CPU per call of the move script, A/B across revisions, beside a minimal scripted call.

A private redis-server (the embedded one: AOF with `appendfsync always`, as
`solrace serve` runs it by default; `--appendfsync` to change it) with one subscriber on every race channel; 50 races of 2 players
stored as running (the race hash with every field a commit writes, and each
player's `n`, `status`, `home` seeded both in the player hash and in the race
hash as `n:PID`, `st:PID`, `home:PID`, for scripts that keep them there); moves of every player packed as the move pipe packs them
(`t1>f2`, a fours-up position when the variant stores one) and sent in
pipelined batches (`--batch` calls per write). The CPU of redis-server
(all its threads, from /proc/PID/task/*/schedstat) is read around `--calls`
calls of each variant; the variants alternate for `--rounds` rounds and the
median is printed, so that they meet the same load from the rest of a shared
machine. Two baselines run beside them: the minimal scripted call, `return 1`
with one key and one argument of a move frame's size, and the minimal
stored write, a script doing one HSET of that argument (which also pays for
its AOF entry).

    .venv/bin/python bench/move_script_bench.py                 # HEAD's move.lua vs the worktree's
    .venv/bin/python bench/move_script_bench.py old=REV:1 new=WORKTREE:32

A variant is NAME=SOURCE:EVERY, SOURCE a git revision, WORKTREE or a path
ending in .lua (a script written for a measurement), EVERY how often a move
sends its position (1: every move, as before snapshots); a script containing
`--@verbatim` is measured with `lua-replicate-commands no` (its AOF entry
is the call, not its effects). NAME=BATCH:K
measures bench/move_batch.lua, the move script looped over K moves per call
(a position every 32 moves); `--batch` moves go out per write whatever the
variant, and the figures are per move.

    .venv/bin/python bench/move_script_bench.py HEAD=HEAD:32 b4=BATCH:4 b16=BATCH:16 --batch 32

NAME=NATIVE:SHAPE measures a move stored without a script, by plain commands
whose explicit stream IDs do the checking (an `XADD` with an ID not above the
stream's last is refused): the writer must know the next ID, so these shapes
assume one writer per race that holds the race in memory (not the server's
design today). SHAPE, commands per move:
  xadd       XADD {race}:ev VER-0 (the progress frame and the move)
  xadd+pub   the same, then PUBLISH of the frame (pipelined, not atomic: a
             lost PUBLISH is a gap the subscriber fills from the stream)
  log+xadd+pub  XADD {race}:log:PID N-0 (the player's log, fenced by the move
             number) before the two above
  lua        one EVALSHA doing the XADD and the PUBLISH of xadd+pub (the
             price of the script around the same writes)

    .venv/bin/python bench/move_script_bench.py HEAD=HEAD:32 x=NATIVE:xadd xp=NATIVE:xadd+pub --batch 32
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import hiredis

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from protocol import rules  # noqa: E402
from server.core import frames  # noqa: E402
from server.storage.embedded_redis import EmbeddedRedis  # noqa: E402
from server.storage.positions import encode_position  # noqa: E402
from server.storage.resp import pack  # noqa: E402

RACES = 50
POS = encode_position(rules.deal("fours-up", "abc"))


def cpu_s(pid: int) -> float:
    total = 0
    for t in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{t}/schedstat") as f:
            total += int(f.read().split()[0])
    return total / 1e9


class Conn:
    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.reader = hiredis.Reader()

    def batch(self, cmds: list[bytes], replies_each: int = 1) -> list[Any]:
        self.sock.sendall(b"".join(cmds))
        out: list[Any] = []
        while len(out) < len(cmds) * replies_each:
            x = self.reader.gets()
            if x is False:
                self.reader.feed(self.sock.recv(1 << 20))
                continue
            out.append(x)
        return out


def drain(sub: socket.socket) -> None:
    """Read the subscriber's messages (PUBLISH costs Redis a write to a live subscriber)."""
    try:
        while sub.recv(1 << 20):
            pass
    except OSError:
        pass  # closed at the end


def rid(i: int) -> str:
    return f"r{i:016x}"


def pid(j: int) -> str:
    return f"p{j:016x}"


def race_fields(r: str) -> list[Any]:
    """A running race's hash as a commit stores it (its field count and sizes set how Redis
    encodes it), with each player's hot fields also seeded as `n:PID`, `st:PID` and `home:PID`
    for scripts measured with them kept in the race hash."""
    seats = json.dumps([{"player": pid(j), "name": f"bot{j}", "ready": True} for j in range(2)])
    fields: dict[str, Any] = {
        "race": r,
        "game": "fours-up",
        "total": 52,
        "seats": 2,
        "time_limit_s": 600,
        "private": 0,
        "host": pid(0),
        "created": 1_700_000_000_000,
        "seed": "s" * 32,
        "commitment": "c" * 64,
        "rules_version": 1,
        "deal_version": 1,
        "quick": 0,
        "sealed": 0,
        "invite": "",
        "certified": 0,
        "proof": "",
        "hints": 1,
        "rated": 0,
        "status": "running",
        "starts_at": 1_700_000_000_000,
        "deadline": 99_999_999_999_999,
        "ended": "",
        "players": seats,
        "ranking": "",
        "ver": 1,
        "live": 2,
    }
    for j in range(2):
        fields |= {f"n:{pid(j)}": 0, f"st:{pid(j)}": "playing", f"home:{pid(j)}": 0}
    return [x for kv in fields.items() for x in kv]


def setup(c: Conn) -> None:
    cmds = [pack(["FLUSHALL"])]
    for i in range(RACES):
        race = "{race:" + rid(i) + "}"
        cmds.append(pack(["HSET", race, *race_fields(rid(i))]))
        for j in range(2):
            cmds.append(
                pack(
                    [
                        "HSET",
                        race + ":p:" + pid(j),
                        "n",
                        0,
                        "status",
                        "playing",
                        "pos",
                        POS,
                        "pn",
                        0,
                        "home",
                        0,
                    ]
                )
            )
    c.batch(cmds)


def move_packer(sha: str, every: int) -> Callable[[int], bytes]:
    counts: dict[tuple[str, str], int] = {}

    def one(i: int) -> bytes:
        r, p = rid(i % RACES), pid((i // RACES) % 2)
        n = counts.get((r, p), 0)
        counts[(r, p)] = n + 1
        race = "{race:" + r + "}"
        prog = frames.progress_prefix(frames.progress_head(r, p), n + 1, 3, False)
        pos = POS if (n + 1) % every == 0 else b""
        return pack(
            ["EVALSHA", sha, 4, race, race + ":p:" + p, race + ":log:" + p, race + ":ev"]
            + ["m", n, "t1>f2", pos, 3, "0", "", r, p, "race:" + r, 1000, prog]
        )

    return one


def batch_packer(sha: str, every: int, k: int) -> Callable[[int], bytes]:
    """`k` moves in one EVALSHA of move_batch.lua (called once per `k` moves: `i` the first)."""
    counts: dict[tuple[str, str], int] = {}

    def one(i: int) -> bytes:
        ks: list[Any] = []
        args: list[Any] = [1000]
        for m in range(i, i + k):
            r, p = rid(m % RACES), pid((m // RACES) % 2)
            n = counts.get((r, p), 0)
            counts[(r, p)] = n + 1
            race = "{race:" + r + "}"
            prog = frames.progress_prefix(frames.progress_head(r, p), n + 1, 3, False)
            pos = POS if (n + 1) % every == 0 else b""
            ks += [race, race + ":p:" + p, race + ":log:" + p, race + ":ev"]
            args += ["m", n, "t1>f2", pos, 3, "0", "", r, p, "race:" + r, prog]
        return pack(["EVALSHA", sha, len(ks), *ks, *args])

    return one


NATIVE_SHAPES = ("xadd", "xadd+pub", "log+xadd+pub", "lua")
# The `lua` shape: the same writes as xadd+pub, in one script.
APPEND_LUA = "redis.call('XADD', KEYS[1], ARGV[1], 'm', ARGV[2], 'mv', ARGV[3]) redis.call('PUBLISH', ARGV[4], ARGV[2]) return 1"


def native_packer(shape: str, sha: str) -> tuple[Callable[[int], bytes], int]:
    """Plain commands per move, and how many replies each move gets."""
    vers: dict[str, int] = {}
    counts: dict[tuple[str, str], int] = {}

    def one(i: int) -> bytes:
        r, p = rid(i % RACES), pid((i // RACES) % 2)
        n = counts.get((r, p), 0)
        counts[(r, p)] = n + 1
        ver = vers.get(r, 1) + 1
        vers[r] = ver
        race = "{race:" + r + "}"
        prog = frames.progress_prefix(frames.progress_head(r, p), n + 1, 3, False)
        frame = (
            prog
            + ver.to_bytes(4, "big")
            + b"\xa5total\xcc\x34\xa2at\xcf"
            + (1_700_000_000_000 + i).to_bytes(8, "big")
        )
        if shape == "lua":
            return pack(["EVALSHA", sha, 1, race + ":ev", f"{ver}-0", frame, "t1>f2", "race:" + r])
        cmds = [pack(["XADD", race + ":ev", f"{ver}-0", "m", frame, "mv", "t1>f2"])]
        if shape != "xadd":
            cmds.append(pack(["PUBLISH", "race:" + r, frame]))
        if shape == "log+xadd+pub":
            cmds.insert(0, pack(["XADD", race + ":log:" + p, f"{n + 1}-0", "e", "1700000000000 3 t1>f2"]))
        return b"".join(cmds)

    return one, {"xadd": 1, "xadd+pub": 2, "log+xadd+pub": 3, "lua": 1}[shape]


def minimal_packer(sha: str) -> Callable[[int], bytes]:
    return lambda i: pack(["EVALSHA", sha, 1, "{race:" + rid(i % RACES) + "}", b"x" * 56])


MINIMAL = "return 1"
# The baseline the move is measured against: one scripted write (its key, its AOF entry).
MINIMAL_HSET = "redis.call('HSET', KEYS[1], 'x', ARGV[1]) return 1"


def source(rev: str) -> str:
    if rev == "NATIVE":
        return APPEND_LUA
    if rev == "BATCH":
        return (ROOT / "bench/move_batch.lua").read_text()
    if rev == "WORKTREE":
        return (ROOT / "server/storage/move.lua").read_text()
    if rev.endswith(".lua"):  # a script written for a measurement (an ablation)
        return Path(rev).read_text()
    return subprocess.run(
        ["git", "show", f"{rev}:server/storage/move.lua"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("variants", nargs="*", default=["HEAD=HEAD:1", "worktree=WORKTREE:32"])
    ap.add_argument("--calls", type=int, default=30_000)
    ap.add_argument("--batch", type=int, default=25)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--appendfsync", choices=("always", "everysec", "no"), default="always")
    a = ap.parse_args()
    scripts: dict[str, tuple[str, int]] = {"minimal call": (MINIMAL, 0), "minimal HSET": (MINIMAL_HSET, 0)}
    batched: dict[str, int] = {}
    native: dict[str, str] = {}
    for v in a.variants:
        name, _, spec = v.partition("=")
        rev, _, every = spec.rpartition(":")
        if rev == "NATIVE":  # NATIVE:SHAPE, plain commands per move
            if every not in NATIVE_SHAPES:
                ap.error(f"{v}: a NATIVE shape is one of {', '.join(NATIVE_SHAPES)}")
            native[name] = every
            every = "1"
        elif rev == "BATCH":  # BATCH:K, K moves per call (a position every 32 moves)
            batched[name] = int(every)
            every = "32"
        scripts[name] = (source(rev), int(every))
    with tempfile.TemporaryDirectory() as tmp, EmbeddedRedis(tmp, appendfsync=a.appendfsync) as redis:
        assert redis.proc is not None
        rpid = redis.proc.pid
        c = Conn(redis.port)
        sub = socket.create_connection(("127.0.0.1", redis.port))
        sub.sendall(pack(["SUBSCRIBE"] + [f"race:{rid(i)}" for i in range(RACES)]))
        threading.Thread(target=drain, args=(sub,), daemon=True).start()
        results: dict[str, list[float]] = {k: [] for k in scripts}
        for _round in range(a.rounds):
            for name, (src, every) in scripts.items():
                sha = c.batch([pack(["SCRIPT", "LOAD", src])])[0].decode()
                # A script marked VERBATIM is replicated (to the AOF) as the call itself, not as
                # its effects; Redis 6.2 then refuses its writes after TIME.
                verbatim = b"no" if "--@verbatim" in src else b"yes"
                c.batch([pack(["CONFIG", "SET", "lua-replicate-commands", verbatim])])
                setup(c)
                k = batched.get(name, 1)
                replies_per_move = 1
                if name in native:
                    packer, replies_per_move = native_packer(native[name], sha)
                elif name in batched:
                    packer = batch_packer(sha, every, k)
                else:
                    packer = move_packer(sha, every) if every else minimal_packer(sha)
                # `a.batch` moves per write whatever the variant: `a.batch // k` calls of k moves.
                calls_per_write = max(1, a.batch // k)
                i = 0
                for _ in range(40):  # warm up
                    c.batch([packer(i + j * k) for j in range(calls_per_write)], replies_per_move)
                    i += calls_per_write * k
                t0 = cpu_s(rpid)
                done = 0
                while done < a.calls:
                    replies = c.batch([packer(i + j * k) for j in range(calls_per_write)], replies_per_move)
                    i += calls_per_write * k
                    done += calls_per_write * k
                results[name].append((cpu_s(rpid) - t0) / done * 1e6)
                if name in batched:
                    replies = [x for r in replies for x in r]
                bad = [
                    r
                    for r in replies
                    if not (r == 1 or type(r) is bytes or (type(r) is list and r[0] == b"ok"))
                ]
                assert not bad, (name, bad[:3])
        sub.close()
    print(
        f"redis-server CPU µs per move (per call for the minimal ones), median of {a.rounds} rounds ({a.calls} calls, {a.batch} per write)"
    )
    for name, xs in results.items():
        xs.sort()
        print(f"  {name:<20} {xs[len(xs) // 2]:6.2f}   ({' '.join(f'{x:.1f}' for x in xs)})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
