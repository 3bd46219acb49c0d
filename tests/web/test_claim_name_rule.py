"""The claim form's copy of the account-name rule (accounts.js) says what the server's says."""

from __future__ import annotations

import re
from pathlib import Path

from protocol.accounts import NAME_MAX, NAME_MIN
from server.ratings.accounts import RESERVED_NAMES

ACCOUNTS_JS = Path(__file__).resolve().parents[2] / "client/web/static/js/accounts.js"


def test_the_claim_forms_name_rule_is_the_servers() -> None:
    js = ACCOUNTS_JS.read_text()
    reserved = re.search(r"const RESERVED_NAMES = new Set\(\[(.*?)\]\)", js)
    assert reserved is not None
    assert set(re.findall(r'"([^"]+)"', reserved.group(1))) == RESERVED_NAMES
    pattern = re.search(r"const ACCOUNT_NAME_RE = /\^(.*)\$/;", js)
    assert pattern is not None
    assert pattern.group(1) == f"[A-Za-z0-9][A-Za-z0-9_-]{{{NAME_MIN - 1},{NAME_MAX - 1}}}"
