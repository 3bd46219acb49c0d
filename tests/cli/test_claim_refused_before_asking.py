"""`solrace play --claim NAME` refuses what the server would refuse for its rule before asking
for anything further: a name breaking the naming rule before any password is asked for, a
password breaking the password rule before it is asked again (it was asked, and asked again,
and only then did the server refuse it). `--password` checks its new password the same way.

No server: none is reached (the URL is a closed port), since nothing is sent. The client's
rules are the server's (protocol/accounts.py, docs/protocol.md §9)."""

from __future__ import annotations

import argparse

import pytest
from tui.test_account_cli import Typist

from client.cli import play
from client.tui.net import write_token

URL = "ws://127.0.0.1:9/ws"  # never reached: every case is refused before sending anything
PW = "correct horse battery"


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    play.add_arguments(parser)
    return parser.parse_args(list(argv))


def step(flag: str, name: str, typist: Typist, tmp_path, capsys) -> tuple[int | None, str]:
    """`solrace play FLAG NAME` (--claim, --login) with `typist` answering its prompts: its exit
    status and what it said on stderr."""
    args = parse(flag, name, "--url", URL, "--token-file", str(tmp_path / "token"))
    status = play.account_step(args, typist, print)
    return status, capsys.readouterr().err.strip()


def claim(name: str, typist: Typist, tmp_path, capsys) -> tuple[int | None, str]:
    return step("--claim", name, typist, tmp_path, capsys)


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("ab", "a name has 3 to 20 characters"),
        ("a" * 21, "a name has 3 to 20 characters"),
        ("ada lovelace", "a name has letters, digits, '_' and '-', and starts with a letter or a digit"),
    ],
)
def test_a_name_the_server_refuses_is_refused_before_any_password(name, why, tmp_path, capsys) -> None:
    typist = Typist(PW, PW)
    status, err = claim(name, typist, tmp_path, capsys)
    assert status == 1 and err == f"solrace play: cannot claim: {why}"
    assert typist.prompts == []


@pytest.mark.parametrize(
    ("password", "why"),
    [
        ("short", "a password has 8 to 256 characters"),
        ("x" * 257, "a password has 8 to 256 characters"),
        (" " * 9, "a password cannot be only spaces"),
        ("AdaLovelace", "a password cannot be the account name"),
    ],
)
def test_a_password_the_server_refuses_is_not_asked_again(password, why, tmp_path, capsys) -> None:
    typist = Typist(password, password)
    status, err = claim("adalovelace", typist, tmp_path, capsys)
    assert status == 1 and err == f"solrace play: cannot claim: {why}"
    assert typist.prompts == ["password for the new account (8 or more characters): "]
    assert password.strip() == "" or password not in err


def test_a_logged_in_terminal_is_refused_before_any_password(tmp_path, capsys) -> None:
    write_token(tmp_path / "token", "p1.secret")  # an account's token
    typist = Typist(PW, PW)
    status, err = claim("adalovelace", typist, tmp_path, capsys)
    assert status == 1 and "log out first" in err
    assert typist.prompts == []


def test_a_new_password_the_server_refuses_is_not_asked_again(tmp_path, capsys) -> None:
    path = tmp_path / "token"
    write_token(path, "p1.secret")  # --password asks only of a logged-in terminal
    typist = Typist(PW, "short", "short")
    status = play.account_step(parse("--password", "--url", URL, "--token-file", str(path)), typist, print)
    assert status == 1
    assert capsys.readouterr().err.strip() == (
        "solrace play: cannot change the password: a password has 8 to 256 characters"
    )
    assert typist.prompts == ["current password: ", "the new password (8 or more characters): "]
