"""Every Lua script names the keys it touches in KEYS, so that a Redis Cluster routes it by them.

A real cluster refuses a script whose declared keys span slots (CROSSSLOT: the cluster tests
see that), but Redis 6.2 runs one that touches an undeclared key of another slot whenever
that slot happens to live on the same node (Redis 7 refuses it): the cluster tests would
pass one time in three. So this reads every script's source: each key a ``redis.call``
touches is ``KEYS[n]`` (directly or through a local function's parameter), or one of the
few keys a script must build from a prefix in ARGV because the script itself learns the
rest (a race's seats, a queue's group), whose prefixes carry KEYS[1]'s hash tag.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path

from redis.crc import key_slot

import server
from protocol import messages as m
from protocol.rules import GAMES
from server.storage import keys as K

ROOT = Path(server.__file__).parent
CALL = re.compile(r"redis\.p?call\(")
KEYLESS = {"TIME", "PUBLISH"}  # no key (a channel is cluster-wide)
# (script, key built in it) → why it stays in KEYS[1]'s slot (checked below)
BUILT = {
    ("load.lua", "ARGV[1] .. s.player"): "a seat's hash, {race:ID}:p:PID",
    ("quick.lua", "ARGV[6] .. p"): "a queued player's holders, {quick:G:S}:held:PID",
    ("quick.lua", "ARGV[8] .. p"): "a queued player's tokens, {quick:G:S}:tok:PID",
    ("quick.lua", "ARGV[9] .. p"): "a queued player's gone set, {quick:G:S}:gone:PID",
}


def scripts() -> dict[str, str]:
    """Every script's source: the .lua files, and each module-level string of a server
    module that calls Redis (scripts composed of pieces as they are sent)."""
    out = {p.name: p.read_text() for p in ROOT.rglob("*.lua")}
    for mod in pkgutil.walk_packages([str(ROOT)], "server."):
        module = importlib.import_module(mod.name)
        for name, value in vars(module).items():
            if isinstance(value, str) and CALL.search(value):
                out[f"{mod.name}.{name}"] = value
    return out


def args_at(src: str, start: int) -> list[str]:
    """The comma-separated arguments of the call whose '(' is just before `start`."""
    out: list[str] = []
    depth, cur, i, quote = 0, "", start, ""
    while i < len(src):
        ch = src[i]
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            if depth == 0:
                return [*out, cur.strip()]
            depth -= 1
        elif ch == "," and depth == 0:
            out, cur = [*out, cur.strip()], ""
            i += 1
            continue
        cur += ch
        i += 1
    raise AssertionError(f"unclosed call at {start}")


def key_exprs(src: str, expr: str, seen: frozenset[tuple[str, str]] = frozenset()) -> list[str]:
    """`expr` (a key argument) resolved to what it names: a parameter of local functions is
    each argument their calls in `src` pass there; anything else is itself."""
    if not re.fullmatch(r"[A-Za-z_]\w*", expr):
        return [expr]
    out, resolved = [], False
    for fn in re.finditer(r"local function (\w+)\(([^)]*)\)", src):
        params = [p.strip() for p in fn.group(2).split(",")]
        if expr not in params:
            continue
        resolved = True
        if (fn.group(1), expr) in seen:
            continue
        i, inner = params.index(expr), seen | {(fn.group(1), expr)}
        for c in re.finditer(rf"(?<![\w.]){fn.group(1)}\(", src):
            if c.start() != fn.start(1):
                out += key_exprs(src, args_at(src, c.end())[i], inner)
    return out if resolved else [expr]  # an unresolved name: reported


def undeclared(name: str, src: str) -> list[str]:
    bad = []
    for call in CALL.finditer(src):
        args = args_at(src, call.end())
        if args[0].strip("'\"").upper() in KEYLESS:
            continue
        for expr in key_exprs(src, args[1]):
            if not re.fullmatch(r"KEYS\[[^\]]+\]", expr) and (name, expr) not in BUILT:
                bad.append(f"{name}: {args[0]} on {expr}")
    return bad


def test_every_script_touches_only_the_keys_it_declares():
    found = scripts()
    assert {"seats.lua", "server.ratings.scripts.TAKE", "server.ratings.accounts_store.RESUME"} <= set(found)
    assert [bad for name, src in sorted(found.items()) for bad in undeclared(name, src)] == []
    assert set(BUILT) <= {(name, e) for name, src in found.items() for e in built_keys(src)}


def built_keys(src: str) -> list[str]:
    return [e for c in CALL.finditer(src) for e in key_exprs(src, (args_at(src, c.end()) + ["", ""])[1])]


def test_the_checker_finds_a_key_built_in_a_script():
    src = "local function get(k) return redis.call('GET', k) end\nget(KEYS[1])\nget('pl:' .. ARGV[1])\n"
    assert undeclared("x", src) == ["x: 'GET' on 'pl:' .. ARGV[1]"]
    assert undeclared("y", "redis.call('HSET', ARGV[2], 'f', 1)") == ["y: 'HSET' on ARGV[2]"]


def test_the_prefixes_scripts_build_keys_from_carry_their_first_keys_tag():
    pid = "p0123456789abcdef"
    rid = K.new_race_id()
    assert key_slot((K.player_key(rid, "") + pid).encode()) == key_slot(K.race_key(rid).encode())
    for game in GAMES:
        for seats in range(m.MIN_QUICK_SEATS, m.MAX_SEATS + 1):
            queue = key_slot(K.quick_key(game, seats).encode())
            for prefix in (
                K.quick_holders_prefix(game, seats),
                K.quick_tokens_prefix(game, seats),
                K.quick_gone_prefix(game, seats),
            ):
                assert key_slot((prefix + pid).encode()) == queue
