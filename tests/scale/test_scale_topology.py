"""docker-compose.yml: it parses, it runs what `solrace serve` accepts, and its topology works as plain processes.

Docker cannot run here, so the same topology is started from the compose
file's own commands: Redis with the compose file's persistence flags, two
servers with the compose file's flags (addresses swapped for loopback ones),
and the in-test TCP balancer where HAProxy would be; clients on both servers.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import yaml
from scale_play import assert_acked_kept, finish, play, seated_race, stored_moves, wait_end
from scale_procs import ROOT, Procs, RedisNode, _readline
from waiting import until

import client
from protocol import messages as m
from server.config import Settings

COMPOSE = ROOT / "docker-compose.yml"
#: A variable compose puts in: `${NAME}`, `${NAME:?message}`, `${NAME:-default}`.
COMPOSE_VAR = re.compile(r"\$\{[^}]*\}")
HAPROXY = ROOT / "deploy" / "haproxy.cfg"
DOCKERFILE = ROOT / "deploy" / "Dockerfile"


def compose() -> dict:
    return yaml.safe_load(COMPOSE.read_text())


def help_flags(command: str) -> set[str]:
    """The flags `solrace COMMAND --help` lists."""
    out = subprocess.run(
        [sys.executable, "-m", "client.cli", command, "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    return set(re.findall(r"(--[a-z][a-z0-9-]*)", out))


def _pairs(command: list[str]) -> dict[str, str]:
    """--flag value pairs of a command line (every flag here takes a value)."""
    flags = {}
    for i, arg in enumerate(command):
        if arg.startswith("--"):
            flags[arg] = command[i + 1]
    return flags


def test_compose_file_matches_the_server():
    doc = compose()
    services = doc["services"]
    assert {"redis", "server", "bots", "proxy"} <= set(services)
    server = services["server"]
    assert server["deploy"]["replicas"] >= 2
    command = server["command"]
    assert command[0] == "serve"
    known = help_flags("serve")
    used = [a for a in command if a.startswith("--")]
    assert used and set(used) <= known, set(used) - known
    # every SOLRACE_* variable names a setting
    fields = {f.upper() for f in Settings.__dataclass_fields__}
    for var in server.get("environment", {}):
        assert var.startswith("SOLRACE_") and var[len("SOLRACE_") :] in fields, var
    # and the values parse, once compose has put in the variables (`${REDIS_PASSWORD:?...}`)
    Settings.from_env({k: COMPOSE_VAR.sub("a-password", str(v)) for k, v in server["environment"].items()})
    # the image runs `solrace`, listening where the proxy sends traffic
    docker = DOCKERFILE.read_text()
    assert 'ENTRYPOINT ["solrace"]' in docker
    port = _pairs(command)["--port"]
    cfg = HAPROXY.read_text()
    assert re.search(rf"server-template \w+ \d+ server:{port}\b", cfg)
    assert "option httpchk GET /healthz" in cfg and "timeout tunnel" in cfg and "option forwardfor" in cfg
    assert services["proxy"]["ports"] == [f"{port}:{port}"]
    assert any("haproxy.cfg" in v for v in services["proxy"]["volumes"])
    # HAProxy needs two open files per connection of its maxconn (and a few more), or it exits
    maxconn = int(re.search(r"^\s*maxconn (\d+)", cfg, re.M).group(1))  # type: ignore[union-attr]
    assert services["proxy"]["ulimits"]["nofile"] >= 2 * maxconn + 100
    # the proxy's network is the one the servers trust for X-Forwarded-For
    subnet = doc["networks"]["solrace"]["ipam"]["config"][0]["subnet"]
    assert _pairs(command)["--trusted-proxies"] == subnet
    # Redis: append-only with fsync always (docs/operations.md: what each setting can lose)
    rcmd = services["redis"]["command"]
    assert rcmd[0] == "redis-server" and _pairs(rcmd)["--appendonly"] == "yes"
    assert _pairs(rcmd)["--appendfsync"] == "always"
    # a memory cap that refuses writes past it, never evicts a race (operations.md, Memory)
    assert _pairs(rcmd)["--maxmemory-policy"] == "noeviction" and _pairs(rcmd)["--maxmemory"]
    # Redis asks for a password, and the servers get theirs in the environment, not in a flag
    assert _pairs(rcmd)["--requirepass"].startswith("${REDIS_PASSWORD:?")
    assert services["redis"]["environment"]["REDISCLI_AUTH"] == "${REDIS_PASSWORD}"
    assert "--redis" not in command
    assert server["environment"]["SOLRACE_REDIS"].startswith("redis://:${REDIS_PASSWORD:?")
    # the bots are their own service: the replicas start no workers, the workers reach the
    # servers through the proxy and Redis with the servers' URL
    assert _pairs(command)["--bot-workers"] == "0"
    bots = services["bots"]
    bcommand = bots["command"]
    assert bcommand[0] == "bots" and "--redis" not in bcommand
    bots_used = {a for a in bcommand if a.startswith("--")}
    assert bots_used <= help_flags("bots"), bots_used - help_flags("bots")
    assert _pairs(bcommand)["--url"] == f"ws://proxy:{port}/ws"
    assert bots["environment"]["SOLRACE_REDIS"] == server["environment"]["SOLRACE_REDIS"]
    assert bots["healthcheck"] == {"disable": True}  # the image's check asks a server's /healthz


def haproxy_sections(text: str) -> dict[str, list[str]]:
    """A HAProxy configuration's sections (`defaults`, `frontend solrace`, ...) -> their lines,
    comments and blank lines left out."""
    sections: dict[str, list[str]] = {}
    lines: list[str] = []
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].rstrip()
        if not line.strip():
            continue
        if not line[0].isspace():
            lines = sections.setdefault(line.strip(), [])
        else:
            lines.append(line.strip())
    return sections


def test_the_documented_haproxy_without_docker_is_the_shipped_one_with_fixed_servers():
    """docs/operations.md §2 "HAProxy without Docker" is deploy/haproxy.cfg but for Docker's
    DNS (its resolvers, the servers found by name) and the global maxconn: the two do not drift."""
    doc = (ROOT / "docs" / "operations.md").read_text()
    documented = haproxy_sections(doc.split("#### HAProxy without Docker", 1)[1].split("```\n", 2)[1])
    shipped = haproxy_sections(HAPROXY.read_text())
    assert set(documented) == {"defaults", "frontend solrace", "backend replicas"}, set(documented)
    assert documented["defaults"] == shipped["defaults"]
    assert documented["frontend solrace"] == shipped["frontend solrace"]
    docker_only = [" resolvers docker init-addr none"]
    backend = [line for line in shipped["backend replicas"] if not line.startswith("server-template ")]
    backend = [line.replace(docker_only[0], "") for line in backend]
    servers = [line for line in documented["backend replicas"] if line.startswith("server ")]
    assert [line for line in documented["backend replicas"] if not line.startswith("server ")] == backend
    assert len(servers) == 2 and all(re.fullmatch(r"server s\d 127\.0\.0\.1:880\d", s) for s in servers)


def interpolated(value: str, variables: dict[str, str]) -> str:
    """Compose's ``${VAR}`` and ``${VAR:?message}`` in `value`, from `variables`."""
    return re.sub(r"\$\{(\w+)(?::\?[^}]*)?\}", lambda m: variables[m.group(1)], value)


def start_bots_service(procs: Procs, log_dir: Path, command: list[str], env: dict[str, str]) -> None:
    """The compose file's `bots` service as a process (command and environment as given)."""
    log = open(log_dir / "bots.log", "wb")
    proc = procs.add(
        subprocess.Popen(
            [sys.executable, "-m", "client.cli", *command],
            cwd=ROOT,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=log,
            start_new_session=True,
            env={**os.environ, **env},
        )
    )
    line = _readline(proc, 30.0)  # "solrace bots: worker wXXXX, up to N bots"
    assert "worker " in line, (line, (log_dir / "bots.log").read_text())


async def race_with_a_bot(c: client.Client) -> None:
    """A private race of `c` and a random bot, played by the bots service until the bot's
    first move is stored."""
    snap = await c.create("racing-aces", seats=2, time_limit_s=300, private=True)
    race = snap.race

    async def asked() -> bool:
        try:
            await c.request(m.Bot(race=race, level="random"))
        except client.ServerError as e:
            if e.code != "no-bots":  # until the worker has reported its slots
                raise
            return False
        return True

    await until(asked, interval=0.2, what="the bots service's worker")

    def bot_ready() -> bool:
        s = c.races_seen.get(race)
        return s is not None and any(p.player.startswith("bot-") and p.ready for p in s.players)

    await until(bot_ready, what="the bot seated and ready")
    await c.ready(race)
    await c.wait_for(m.Started, lambda ev: ev.race == race, timeout=30)

    async def bot_moved() -> bool:
        st = await c.resync(race)
        return any(p.player.startswith("bot-") and p.n > 0 for p in st.race.players)

    await until(bot_moved, interval=0.2, what="the bot's first move")


async def test_compose_topology_as_processes(procs: Procs, tmp_path: Path, start_server, balancer):
    services = compose()["services"]
    # Redis with the compose file's persistence flags
    variables = {"REDIS_PASSWORD": "a-compose-password"}  # what .env would hold
    rflags = {k: interpolated(v, variables) for k, v in _pairs(services["redis"]["command"]).items()}
    node = RedisNode(
        procs,
        tmp_path / "redis",
        appendonly=rflags["--appendonly"] == "yes",
        appendfsync=rflags["--appendfsync"],
        password=rflags["--requirepass"],
    ).start()
    # the replicas with the compose file's flags and environment, on loopback
    flags = _pairs(services["server"]["command"])
    for own in ("--host", "--port"):  # start_server gives loopback ones
        del flags[own]
    flags["--trusted-proxies"] = "127.0.0.1/32"
    args = [x for kv in flags.items() for x in kv]
    env = {k: interpolated(str(v), variables) for k, v in services["server"]["environment"].items()}
    # the compose file's Redis URL, password included, with the loopback address of this Redis
    url = env.pop("SOLRACE_REDIS").replace("@redis:6379/", f"@127.0.0.1:{node.port}/")
    assert url == node.url
    replicas = services["server"]["deploy"]["replicas"]
    servers = [start_server(url, *args, env=env, fast=False, name=f"replica{i}") for i in range(replicas)]
    lb = balancer(servers)
    # the bots service, through the proxy (the balancer) and with the servers' Redis URL
    bots = services["bots"]
    bcommand = list(bots["command"])
    bcommand[bcommand.index("--url") + 1] = lb.url
    benv = {k: interpolated(str(v), variables) for k, v in bots["environment"].items()}
    benv["SOLRACE_REDIS"] = url
    start_bots_service(procs, tmp_path, bcommand, benv)
    players = [await client.connect(lb.url, name=f"p{i}", reconnect=True) for i in range(2 * replicas)]
    try:
        assert {port for _h, port in lb.picked} == {s.port for s in servers}  # clients on every replica
        # the compose file's countdown is the default (3 s): one race, then play and finish
        rid = await seated_race(players, "fours-up")
        results = [await play(c, rid, 10) for c in players]
        for c in players:
            await finish(c, rid)
        ends = [await wait_end(c, rid) for c in players]
        assert all(e.ranking == ends[0].ranking for e in ends)
        for c, res in zip(players, results):
            n, log = await stored_moves(node.url, rid, c.player)
            assert_acked_kept(res.acks, n, log)
        await race_with_a_bot(players[0])
    finally:
        for c in players:
            await c.close()
    with node.client() as r:
        assert r.config_get("appendonly")["appendonly"] == "yes"
    for s in servers:
        assert "Traceback" not in s.log_text()
        assert variables["REDIS_PASSWORD"] not in s.log_text()
    bots_log = (tmp_path / "bots.log").read_text()
    assert "Traceback" not in bots_log and variables["REDIS_PASSWORD"] not in bots_log
    assert os.path.exists(node.dir / "appendonly.aof")


def test_the_image_runs_as_a_user_that_owns_its_data_folder():
    """The image's default command starts a private redis-server in SOLRACE_DATA: that
    folder must be the image user's (it was ./data in root's /app, unwritable), and each
    ENV of the image must be a setting."""
    docker = DOCKERFILE.read_text()
    env = dict(re.findall(r"(SOLRACE_\w+)=(\S+)", docker.partition("\nENV ")[2].splitlines()[0]))
    fields = {f.upper() for f in Settings.__dataclass_fields__}
    assert env and all(k[len("SOLRACE_") :] in fields for k in env), env
    Settings.from_env(env)
    user = re.search(r"^USER (\w+)$", docker, re.M)
    assert user and f"chown {user.group(1)} {env['SOLRACE_DATA']}" in docker
    assert 'CMD ["serve"]' in docker  # no flags: they would win over a deployment's variables


def test_the_image_gives_no_container_an_anonymous_volume():
    """A VOLUME in the image gave every compose replica and bot worker (on the external Redis,
    writing nothing in /data) an anonymous volume, a new one at each recreation; the one
    container that needs /data kept is told to mount it, in the operations guide."""
    assert not re.search(r"^VOLUME\b", DOCKERFILE.read_text(), re.M)
    guide = (ROOT / "docs" / "operations.md").read_text()
    assert re.search(r"docker run [^\n]*-v [\w.-]+:/data ", guide)
