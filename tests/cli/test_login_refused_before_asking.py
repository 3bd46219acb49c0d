"""`solrace play --login NAME` refuses a name that breaks the account naming rule before it asks
for the password: no account can have it (the server makes none such), so the password typed
could only be refused after. A name that fits the rule is asked for its password as before.

No server: none is reached (the URL is a closed port) where nothing is sent. The client's
rule is the server's (protocol/accounts.py, docs/protocol.md §9)."""

from __future__ import annotations

import pytest
from test_claim_refused_before_asking import PW, step
from tui.test_account_cli import Typist


def login(name: str, typist: Typist, tmp_path, capsys) -> tuple[int | None, str]:
    return step("--login", name, typist, tmp_path, capsys)


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("ab", "a name has 3 to 20 characters"),
        ("a" * 21, "a name has 3 to 20 characters"),
        ("ada lovelace", "a name has letters, digits, '_' and '-', and starts with a letter or a digit"),
        ("_ada", "a name has letters, digits, '_' and '-', and starts with a letter or a digit"),
    ],
)
def test_a_name_no_account_can_have_is_refused_before_the_password(name, why, tmp_path, capsys) -> None:
    typist = Typist(PW)
    status, err = login(name, typist, tmp_path, capsys)
    assert status == 1
    assert err == f"solrace play: cannot log in: {why}: no account has such a name"
    assert typist.prompts == []
    assert not (tmp_path / "token").exists()


def test_a_name_that_fits_the_rule_is_asked_its_password(tmp_path, capsys) -> None:
    typist = Typist(PW)
    status, err = login("AdaLovelace", typist, tmp_path, capsys)
    # Asked, then sent: the closed port answers nothing.
    assert typist.prompts == ["password of AdaLovelace: "]
    assert status == 1 and err.startswith("solrace play: cannot log in: ")
    assert "no account has such a name" not in err
