"""`solrace play --login NAME`, `--claim NAME` and `--logout` against a real server (in
this process) and a real Redis (docs/protocol.md §9).

The account is made in the test through the client library (`claim`); the password is
typed through a stand-in for getpass and must never show anywhere: not on stdout or
stderr, not in the token file. Refusals (a wrong password, the login limit) are one
plain sentence, never a traceback. After a login the race app plays as the account.
"""

from __future__ import annotations

import argparse
import asyncio

import pytest

from client.cli import play
from client.library.connection import ServerError, connect
from client.tui import account
from client.tui.net import is_account_token, open_session
from server.ratings import keys as rkeys

from .helpers import rendered, until

pytestmark = pytest.mark.timeout(120)

CHEAP_HASH = dict(password_hash_passes=1, password_hash_memory_kib=1024)
PW = "correct horse battery"


@pytest.fixture
async def server(make_server):
    return await make_server(**CHEAP_HASH)


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    play.add_arguments(parser)
    return parser.parse_args(list(argv))


async def make_account(url: str, name: str) -> str:
    """An account made through the library: a guest that claims `name`; its player id."""
    async with connect(url, name=name) as c:
        guest = c.player
        acct = await c.claim(name, PW)
        assert acct.player == guest and acct.name == name
        assert c.token == acct.token and is_account_token(c.token)  # kept for reconnections
    assert acct.player
    return acct.player


class Typist:
    """getpass's stand-in: answers each prompt with the next password, and records the prompts."""

    def __init__(self, *passwords: str) -> None:
        self.passwords = list(passwords)
        self.prompts: list[str] = []

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        return self.passwords.pop(0)


async def step(*argv: str, ask: Typist | None = None) -> tuple[int | None, list[str]]:
    """`account_step` as `solrace play ARGV` runs it (in a thread: it runs its own loop)."""
    said: list[str] = []
    status = await asyncio.to_thread(play.account_step, parse(*argv), ask or Typist(), said.append)
    return status, said


async def test_login_from_the_terminal_then_the_app_plays_as_the_account(server, tmp_path, capsys) -> None:
    url = server.ws_url
    pid = await make_account(url, "ada")
    path = tmp_path / "token"
    guest = await open_session(url, "visitor", str(path), reconnect=False)  # this terminal's guest
    await guest.close()
    guest_token = path.read_text().strip()

    typist = Typist(PW)
    status, said = await step("--login", "ada", "--url", url, "--token-file", str(path), ask=typist)
    assert status is None  # go on to the app
    assert typist.prompts == ["password of ada: "]
    assert len(said) == 1 and said[0].startswith("logged in as ada"), said
    assert "visitor" in said[0] and "--claim" in said[0]  # the guest left behind is named
    token = path.read_text().strip()
    assert is_account_token(token) and token != guest_token and token.startswith(pid)
    assert path.stat().st_mode & 0o077 == 0  # the owner's only
    out = capsys.readouterr()
    assert PW not in out.out + out.err + path.read_text() + " ".join(said)

    app = play.build_app(parse("--url", url, "--token-file", str(path)))
    async with app.run_test(size=(110, 45)) as pilot:
        await until(pilot, lambda: app.screen.query("#menu-you"), what="the menu")
        you = rendered(app.screen.query_one("#menu-you"))
        assert "ada" in you and "(account)" in you and "--logout" in you
        assert app.session is not None and app.session.player == pid


async def test_a_wrong_password_and_the_login_limit_are_said_plainly(server, tmp_path, capsys) -> None:
    url = server.ws_url
    pid = await make_account(url, "bob")
    # Every client here is 127.0.0.1: as if bob had claimed elsewhere, the address is not known.
    await server.store.redis.delete(rkeys.known_addresses(pid))
    path = tmp_path / "token"
    path.write_text("kept\n")
    argv = ("--login", "bob", "--url", url, "--token-file", str(path))
    status, said = await step(*argv, ask=Typist("not the password"))
    assert status == 1 and said == []
    err = capsys.readouterr().err
    assert err.strip() == "solrace play: cannot log in: unknown name or wrong password", err
    assert path.read_text() == "kept\n"  # a refused login changes nothing

    # The name's allowance (5 at once, docs/protocol.md §9) runs out: the wait is said in words.
    for _ in range(4):
        with pytest.raises(account.AccountFailed, match="wrong password"):
            await account.login([url], "bob", "still wrong", str(path))
    status, said = await step(*argv, ask=Typist(PW))  # even the right one waits now
    assert status == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("solrace play: cannot log in: too many login attempts"), err
    assert "try again in 4 min" in err or "try again in 5 min" in err, err
    assert "Traceback" not in err and path.read_text() == "kept\n"


async def test_logout_ends_the_session_and_forgets_its_token(server, tmp_path) -> None:
    url = server.ws_url
    await make_account(url, "cyd")
    path = tmp_path / "token"
    status, _ = await step("--login", "cyd", "--url", url, "--token-file", str(path), ask=Typist(PW))
    assert status is None
    token = path.read_text().strip()

    status, said = await step("--logout", "--url", url, "--token-file", str(path))
    assert status == 0 and len(said) == 1 and said[0].startswith("logged out of cyd"), said
    assert not path.exists()
    with pytest.raises(ServerError) as e:  # the server no longer takes the token
        async with connect(url, token=token):
            pass
    assert e.value.code == "bad-token"

    status, said = await step("--logout", "--url", url, "--token-file", str(path))
    assert status == 0 and "not logged in" in said[0]
    # An account token the server had already revoked is taken out of the file too.
    path.write_text(token + "\n")
    status, said = await step("--logout", "--url", url, "--token-file", str(path))
    assert status == 0 and "already ended" in said[0] and not path.exists()


async def test_claim_makes_this_guest_an_account(server, tmp_path, capsys) -> None:
    url = server.ws_url
    path = tmp_path / "token"
    guest = await open_session(url, "dee", str(path), reconnect=False)
    pid = guest.player
    await guest.close()
    argv = ("--claim", "dee", "--url", url, "--token-file", str(path))

    with pytest.raises(SystemExit, match="differ"):
        await step(*argv, ask=Typist(PW, PW + "!"))
    assert not is_account_token(path.read_text().strip())

    typist = Typist(PW, PW)
    status, said = await step(*argv, ask=typist)
    assert status is None and said[0].startswith("this player is now the account dee"), said
    assert len(typist.prompts) == 2
    token = path.read_text().strip()
    assert is_account_token(token) and token.startswith(pid)  # the same player
    async with connect(url, token=token) as c:
        assert c.player == pid and c.name == "dee"

    # Logged in already: no claim over an account.
    status, _ = await step(*argv, ask=Typist(PW, PW))
    assert status == 1 and "log out first" in capsys.readouterr().err
    # A taken name, from another terminal's guest.
    other = tmp_path / "other"
    status, _ = await step("--claim", "DEE", "--url", url, "--token-file", str(other), ask=Typist(PW, PW))
    err = capsys.readouterr().err
    assert status == 1 and err.strip() == "solrace play: cannot claim: that name is taken by another account"
    assert PW not in err


def test_account_flags_exclude_each_other_and_offline() -> None:
    with pytest.raises(SystemExit):
        parse("--login", "ada", "--logout")
    with pytest.raises(SystemExit, match="offline"):
        play.account_step(parse("--login", "ada", "--offline"), Typist(PW), print)
    assert play.account_step(parse("--game", "fours-up"), Typist(), print) is None


def test_no_password_typed_does_nothing(tmp_path, capsys) -> None:
    path = tmp_path / "token"
    url = "ws://127.0.0.1:9/ws"  # never reached: nothing is sent without a password
    status = play.account_step(
        parse("--login", "ada", "--url", url, "--token-file", str(path)), Typist(""), print
    )
    assert status == 1 and capsys.readouterr().err.strip() == (
        "solrace play: a password was not given (the input ended, or was empty): nothing done"
    )

    def closed_input(prompt: str) -> str:
        raise EOFError

    status = play.account_step(
        parse("--claim", "ada", "--url", url, "--token-file", str(path)), closed_input, print
    )
    assert status == 1 and "a password was not given" in capsys.readouterr().err and not path.exists()


async def test_a_link_names_the_server_to_log_in_to(server, tmp_path) -> None:
    """`--login NAME --join LINK`: the account is the link's server's, as the race is."""
    url = server.ws_url
    pid = await make_account(url, "eve")
    async with connect(url, name="host") as host:
        race = (await host.create("fours-up", seats=2)).race
    link = f"{server.http_url.rstrip('/')}/#race={race}"
    path = tmp_path / "token"
    status, said = await step("--login", "eve", "--join", link, "--token-file", str(path), ask=Typist(PW))
    assert status is None and said[0].startswith("logged in as eve")
    assert path.read_text().startswith(pid)


async def test_no_server_is_said_in_words(tmp_path) -> None:
    """`--login`, `--claim`, `--logout` with no server at the address say where none answered,
    not the exception (it said "…ConnectionRefusedError: [Errno 111] Connect call failed…")."""
    from .test_no_server_help import closed_port_url

    url = closed_port_url()
    where = url.removeprefix("ws://").removesuffix("/ws")
    with pytest.raises(account.AccountFailed) as failed:
        await account.login([url], "bob", PW, str(tmp_path / "token"))
    assert str(failed.value) == f"cannot log in: no server answered at {where} — is it running?"
