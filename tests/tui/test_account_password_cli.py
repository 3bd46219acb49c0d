"""`solrace play --password` and `--logout-all` against a real server (in this process) and
a real Redis (docs/protocol.md §9).

Two terminals (two token files) log in to one account. `--password` on one asks for the
current password and twice for the new one (through a stand-in for getpass), and never
shows any of them; the server ends the other terminal's session and keeps this one's,
whose token file therefore stays as it was and still plays as the account. `--logout-all`
ends every session, this terminal's too, and takes its token out of the file.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from client.library.connection import ServerError, connect
from client.tui.net import AccountSessionEnded, is_account_token, open_session

from .test_account_cli import Typist, make_account, step

pytestmark = pytest.mark.timeout(120)

ROOT = Path(__file__).resolve().parents[2]
CHEAP_HASH = dict(password_hash_passes=1, password_hash_memory_kib=1024)
PW = "correct horse battery"  # make_account's
NEW = "staple battery horse"


@pytest.fixture
async def server(make_server):
    return await make_server(**CHEAP_HASH)


async def refused(url: str, token: str) -> bool:
    try:
        async with connect(url, token=token):
            return False
    except ServerError as e:
        return e.code == "bad-token"


async def test_a_password_change_keeps_this_terminal_and_ends_the_others(server, tmp_path, capsys) -> None:
    url = server.ws_url
    pid = await make_account(url, "ada")
    here, there = tmp_path / "here", tmp_path / "there"
    for path in (here, there):
        status, _ = await step("--login", "ada", "--url", url, "--token-file", str(path), ask=Typist(PW))
        assert status is None
    token, other = here.read_text(), there.read_text()
    argv = ("--password", "--url", url, "--token-file", str(here))

    # The two new ones differ: nothing is sent.
    with pytest.raises(SystemExit, match="the password is unchanged"):
        await step(*argv, ask=Typist(PW, NEW, NEW + "!"))
    # A wrong current password: one sentence, nothing changed.
    status, said = await step(*argv, ask=Typist("not the password", NEW, NEW))
    assert status == 1 and said == []
    err = capsys.readouterr().err.strip()
    assert err == "solrace play: cannot change the password: the current password is wrong", err
    assert not await refused(url, other.strip())

    typist = Typist(PW, NEW, NEW)
    status, said = await step(*argv, ask=typist)
    assert status == 0  # done: no race app after it
    assert typist.prompts == [
        "current password: ",
        "the new password (8 or more characters): ",
        "the same password again: ",
    ]
    assert len(said) == 1 and said[0].startswith("the password of ada is changed"), said
    assert "this terminal stays logged in" in said[0]
    # This terminal's token file is as it was, and its token still plays as the account...
    assert here.read_text() == token and is_account_token(token.strip())
    session = await open_session(url, None, str(here), reconnect=False)
    try:
        assert session.player == pid and session.logged_in
    finally:
        await session.close()
    # ...while the other terminal's session has ended: it is told how to log in again.
    assert await refused(url, other.strip())
    with pytest.raises(AccountSessionEnded):
        await open_session(url, None, str(there), reconnect=False)
    # The new password logs in, the old one no longer does.
    status, _ = await step("--login", "ada", "--url", url, "--token-file", str(there), ask=Typist(NEW))
    assert status is None
    async with connect(url, name="x") as c:
        with pytest.raises(ServerError) as e:
            await c.login("ada", PW)
        assert e.value.code == "bad-login"
    out = capsys.readouterr()
    shown = out.out + out.err + " ".join(said) + here.read_text() + there.read_text()
    assert PW not in shown and NEW not in shown


async def piped(*argv: str, lines: list[str]) -> tuple[int | None, str, str]:
    """`solrace play ARGV` with `lines` on a pipe for stdin and no controlling terminal (as
    from a script or cron: getpass could not open /dev/tty): its status, stdout and stderr."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "client.cli",
        "play",
        *argv,
        cwd=ROOT,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        start_new_session=True,
    )
    out, err = await asyncio.wait_for(proc.communicate("".join(f"{x}\n" for x in lines).encode()), 60)
    return proc.returncode, out.decode(), err.decode()


async def test_passwords_from_a_pipe_are_lines_of_stdin_with_no_prompt_or_warning(server, tmp_path) -> None:
    """A script: `solrace play --login/--claim/--password` with stdin a pipe reads each password
    as a line, prints no prompt and none of getpass's warnings (it has no terminal to hide the
    echo on), and after a login or a claim stops quietly (exit 0, the action's own line, no
    warning: a script asked for the account, not a race) instead of waiting."""
    url = server.ws_url
    await make_account(url, "cyd")
    path = tmp_path / "token"
    status, out, err = await piped("--login", "cyd", "--url", url, "--token-file", str(path), lines=[PW])
    assert (status, err) == (0, ""), (out, err)
    assert out.startswith("logged in as cyd"), out
    assert is_account_token(path.read_text().strip())

    status, out, err = await piped(
        "--password", "--url", url, "--token-file", str(path), lines=[PW, NEW, NEW]
    )
    assert (status, err) == (0, ""), err
    assert out.startswith("the password of cyd is changed"), out
    status, _ = await step(
        "--login", "cyd", "--url", url, "--token-file", str(tmp_path / "2"), ask=Typist(NEW)
    )
    assert status is None  # the new password logs in

    # a claim whose input ends before the password is typed twice: nothing done, said so
    status, out, err = await piped(
        "--claim", "dot", "--url", url, "--token-file", str(tmp_path / "3"), lines=[NEW]
    )
    assert status == 1 and "a password was not given (the input ended" in err, err
    assert not (tmp_path / "3").exists() or not is_account_token((tmp_path / "3").read_text().strip())
    for text in (out, err):
        assert PW not in text and NEW not in text


async def test_logout_all_ends_every_session_and_forgets_the_token(server, tmp_path, capsys) -> None:
    url = server.ws_url
    await make_account(url, "bob")
    here, there = tmp_path / "here", tmp_path / "there"
    for path in (here, there):
        status, _ = await step("--login", "bob", "--url", url, "--token-file", str(path), ask=Typist(PW))
        assert status is None
    token, other = here.read_text().strip(), there.read_text().strip()

    status, said = await step("--logout-all", "--url", url, "--token-file", str(here))
    assert status == 0 and len(said) == 1 and said[0].startswith("logged out of bob on every device"), said
    assert not here.exists()  # this terminal's token is revoked too: forgotten
    assert await refused(url, token) and await refused(url, other)

    # Nothing left to log out of here; the other terminal's token is refused, said plainly.
    capsys.readouterr()
    status, said = await step("--logout-all", "--url", url, "--token-file", str(here))
    assert status == 1 and said == []
    assert "this terminal is not logged in" in capsys.readouterr().err
    status, said = await step("--logout-all", "--url", url, "--token-file", str(there))
    assert status == 1 and there.read_text().strip() == other
    err = capsys.readouterr().err.strip()
    assert "account session has ended" in err and "solrace play --login NAME" in err, err
