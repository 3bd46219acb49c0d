"""An account's name and password rules (docs/protocol.md §9): the server refuses what breaks
them, and a client checks them before it asks for another password only to be refused after.
The names the server keeps for itself (reserved) are the server's own check
(server/ratings/accounts.py), as is whether a name is taken."""

from __future__ import annotations

import re

NAME_MIN, NAME_MAX = 3, 20
PASSWORD_MIN, PASSWORD_MAX = 8, 256
_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*")


def name_form_problem(name: str) -> str | None:
    """Why ``name`` cannot be an account name by its length or characters, or None."""
    if not NAME_MIN <= len(name) <= NAME_MAX:
        return f"a name has {NAME_MIN} to {NAME_MAX} characters"
    if not name.isascii() or _NAME_RE.fullmatch(name) is None:
        return "a name has letters, digits, '_' and '-', and starts with a letter or a digit"
    return None


def password_problem(password: str, name: str | None) -> str | None:
    """Why ``password`` cannot be the password of account ``name`` (None: a name not known,
    as when it changes), or None."""
    if not PASSWORD_MIN <= len(password) <= PASSWORD_MAX:
        return f"a password has {PASSWORD_MIN} to {PASSWORD_MAX} characters"
    if not password.strip():
        return "a password cannot be only spaces"
    if name is not None and password.lower() == name.lower():
        return "a password cannot be the account name"
    return None
