"""Log in, claim an account, log out (here or everywhere) and change the password from
the terminal (docs/protocol.md §9).

``solrace play --login NAME``, ``--claim NAME``, ``--logout``, ``--logout-all`` and
``--password`` run these before (or instead of) the race app. Each opens its own short
connection, says one line of what happened, and keeps the account token in the token
file the apps already use (client/tui/net.py): the next connection says hello with it and
plays as the account.

The password is only ever passed through: it comes from the caller (``getpass`` in
client/cli/play.py), goes into one request, and is neither logged, stored nor shown.
A password change revokes every other token of the account but keeps the one it was
made with: it is made with the token file's own token, which therefore stays good
(the server sends no new one).
A refusal raises :class:`AccountFailed` with a sentence for the user
(:func:`error_text`), never a traceback.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from protocol.accounts import name_form_problem

from .errors import connect_error_text
from .errors import error_text as player_error_text
from .net import is_account_token, load_token, token_path, write_token

if TYPE_CHECKING:
    from pathlib import Path

    from client.library.connection import Client


class AccountFailed(Exception):
    """A login, claim or logout that did not happen; ``str()`` is the sentence to show."""


@dataclass
class Done:
    """What a successful command did, in one line for the user."""

    text: str
    name: str = ""


def error_text(code: str, message: str = "", retry_ms: int | None = None) -> str:
    """A server refusal as one sentence (no traceback, no code to look up): the words of
    client/tui/errors.py, but the server's own message where it says more of an account's
    rules (which one a password or a name breaks, and its figures)."""
    if code in ("bad-password", "bad-name") and message:
        return message  # the one rule broken, said once (the general rule after it said it twice)
    return player_error_text(code, message, retry_ms)


def _failed(exc: Exception, doing: str) -> AccountFailed:
    from client.library.connection import ServerError

    if isinstance(exc, ServerError):
        return AccountFailed(f"{doing}: {error_text(str(exc.code), exc.message or '', exc.retry_ms)}")
    # where no server answered, in words (not its ConnectionRefusedError…: that is logged)
    return AccountFailed(f"{doing}: {connect_error_text(exc)}")


async def _hello(urls: Sequence[str], token: str | None) -> Client:
    """A connection resuming ``token`` (a guest's or an account's), or a new guest's if
    the server no longer knows it (or there is none). No reconnection: a short errand."""
    from client.library.connection import ServerError, connect

    if token:
        client = connect(list(urls), token=token)
        try:
            await client.open()
            return client
        except ServerError as e:
            if e.code != "bad-token":
                raise
    client = connect(list(urls))
    await client.open()
    return client


async def login(urls: Sequence[str], name: str, password: str, token_file: str | None = None) -> Done:
    """Log in to account ``name``; its token goes into the token file (replacing what it held)."""
    from client.library.connection import Disconnected, ServerError

    path = token_path(token_file)
    old = load_token(path)
    try:
        client = await _hello(urls, old)
    except (ServerError, Disconnected, TimeoutError) as e:
        raise _failed(e, "cannot log in") from None
    try:
        # the guest this terminal played as, if the file held one the server still knows
        resumed_guest = bool(old) and client.token == old and not is_account_token(old)
        was = client.name if resumed_guest else ""
        acct = await client.login(name, password)
    except (ServerError, Disconnected, TimeoutError) as e:
        raise _failed(e, "cannot log in") from None
    finally:
        await client.close()
    _keep(path, acct.token, "logged in")
    text = f"logged in as {acct.name}: this terminal plays as the account from now on"
    if was:
        text += f" (the guest {was} it played as before is left behind: --claim keeps a guest's races)"
    return Done(text, acct.name)


def check_login(name: str) -> None:
    """`AccountFailed` if ``name`` breaks the account naming rule: no account has such a name
    (the server makes none), so its password is not asked for only to be refused."""
    problem = name_form_problem(name)
    if problem is not None:
        raise AccountFailed(f"cannot log in: {problem}: no account has such a name")


def check_claim(name: str, token_file: str | None = None) -> None:
    """`AccountFailed` if claiming ``name`` from this terminal is refused whatever the
    password: its token file is an account's, or the name breaks the rule."""
    path = token_path(token_file)
    if is_account_token(load_token(path)):
        raise AccountFailed(
            f"cannot claim: this terminal is logged in to an account ({path} holds its token): "
            "log out first (solrace play --logout) to make a new guest an account"
        )
    # Checked before a password is asked for; reserved and taken names are the server's to say.
    problem = name_form_problem(name)
    if problem is not None:
        raise AccountFailed(f"cannot claim: {problem}")


async def claim(urls: Sequence[str], name: str, password: str, token_file: str | None = None) -> Done:
    """Make this terminal's guest the account ``name`` (same player: its races and daily
    history stay); the account's token replaces the guest's in the token file."""
    from client.library.connection import Disconnected, ServerError

    path = token_path(token_file)
    old = load_token(path)
    if is_account_token(old):
        check_claim(name, token_file)  # raises, saying why
    try:
        client = await _hello(urls, old)
    except (ServerError, Disconnected, TimeoutError) as e:
        raise _failed(e, "cannot claim") from None
    new_guest = bool(old) and client.token != old
    try:
        acct = await client.claim(name, password)
    except (ServerError, Disconnected, TimeoutError) as e:
        raise _failed(e, "cannot claim") from None
    finally:
        await client.close()
    _keep(path, acct.token, "claimed")
    text = f"this player is now the account {acct.name}: log in with that name on any device"
    if new_guest:
        text += " (your guest session had ended: the account was made from a new guest)"
    return Done(text, acct.name)


async def logout(urls: Sequence[str], token_file: str | None = None) -> Done:
    """End the account session of the token file and remove its token from the file."""
    from client.library.connection import Disconnected, ServerError, connect

    path = token_path(token_file)
    token = load_token(path)
    if not is_account_token(token):
        return Done(f"not logged in ({path} holds no account token): nothing to do")
    assert token is not None
    client = connect(list(urls), token=token)
    try:
        await client.open()
    except ServerError as e:
        if e.code != "bad-token":
            raise _failed(e, "cannot log out") from None
        _forget(path, token)
        return Done(f"the account session had already ended; its token is removed from {path}")
    except (Disconnected, TimeoutError) as e:
        raise _failed(e, "cannot log out") from None
    name = client.name
    try:
        await client.logout()
    except ServerError as e:
        if e.code != "not-logged-in":  # revoked meanwhile: as good as done
            raise _failed(e, "cannot log out") from None
    except (Disconnected, TimeoutError) as e:
        raise _failed(e, "cannot log out") from None
    finally:
        await client.close()
    _forget(path, token)
    return Done(f"logged out of {name}: the next solrace play plays as a new guest", name)


def account_token(token_file: str | None, doing: str) -> str:
    """The token file's account token; `AccountFailed` saying how to log in when it holds
    none (checked before any password is asked for)."""
    path = token_path(token_file)
    token = load_token(path)
    if token is None or not is_account_token(token):
        raise AccountFailed(
            f"cannot {doing}: this terminal is not logged in ({path} holds no account token): "
            "log in first with solrace play --login NAME"
        )
    return token


async def _account_client(urls: Sequence[str], path: Path, doing: str) -> tuple[Client, str]:
    """A connection logged in with the token file's account token, and that token;
    `AccountFailed` saying how to log in when the file holds none or the server refuses it."""
    from client.library.connection import Disconnected, ServerError, connect

    token = account_token(str(path), doing)
    client = connect(list(urls), token=token)
    try:
        await client.open()
    except ServerError as e:
        if e.code == "bad-token":
            raise AccountFailed(
                f"cannot {doing}: this terminal's account session has ended (logged out, password "
                "changed, or unused for 30 days): log in again with solrace play --login NAME"
            ) from None
        raise _failed(e, f"cannot {doing}") from None
    except (Disconnected, TimeoutError) as e:
        raise _failed(e, f"cannot {doing}") from None
    return client, token


async def logout_all(urls: Sequence[str], token_file: str | None = None) -> Done:
    """End every session of the token file's account, on every device (this one too), and
    remove its token from the file."""
    from client.library.connection import Disconnected, ServerError

    path = token_path(token_file)
    client, token = await _account_client(urls, path, "log out everywhere")
    name = client.name
    try:
        await client.logout_all()
    except (ServerError, Disconnected, TimeoutError) as e:
        raise _failed(e, "cannot log out everywhere") from None
    finally:
        await client.close()
    _forget(path, token)
    return Done(
        f"logged out of {name} on every device: each must log in again; "
        "the next solrace play here plays as a new guest",
        name,
    )


async def change_password(urls: Sequence[str], old: str, new: str, token_file: str | None = None) -> Done:
    """Change the password of the token file's account. The server revokes every other
    token of the account and keeps this one, so the token file stays as it is."""
    from client.library.connection import Disconnected, ServerError

    path = token_path(token_file)
    client, token = await _account_client(urls, path, "change the password")
    name = client.name
    try:
        await client.change_password(old, new)
    except ServerError as e:
        if e.code == "bad-login":  # the old password, not a name, is what was wrong
            raise AccountFailed("cannot change the password: the current password is wrong") from None
        raise _failed(e, "cannot change the password") from None
    except (Disconnected, TimeoutError) as e:
        raise _failed(e, "cannot change the password") from None
    finally:
        await client.close()
    # The server keeps the token the change was made with (docs/protocol.md §9), which is
    # the file's: it stays. Should the connection have been handed another, keep that one.
    if client.token and client.token != token and is_account_token(client.token):
        _keep(path, client.token, "the password is changed")
    return Done(
        f"the password of {name} is changed: this terminal stays logged in; "
        "every other device must log in again with the new password",
        name,
    )


def _keep(path: Path, token: str, done: str) -> None:
    try:
        write_token(path, token)
    except OSError as e:
        raise AccountFailed(f"{done}, but the token could not be written to {path}: {e}") from None


def _forget(path: Path, token: str) -> None:
    """Remove the token file if it still holds ``token`` (another run may have changed it)."""
    if load_token(path) == token:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
