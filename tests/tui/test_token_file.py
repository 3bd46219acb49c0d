"""The terminal client's token file against a real server (docs/protocol.md §9).

A refused account token (``PLAYER.SECRET``) is not silently replaced by a new
guest: ``open_session`` stops with a message saying how to log in again
(``solrace play --login NAME``, tests/tui/test_account_cli.py) and leaves the
file as it is. A refused guest token is replaced by a new guest, as
before, with one line saying so. A live account token resumes the account.
"""

from __future__ import annotations

import pytest
import redis.asyncio as aioredis
from wsclient import Raw, player

from client.tui.errors import ServerError
from client.tui.net import connector, open_session, write_token
from client.tui.play_app import PlayApp
from client.tui.widgets import BoardView
from server.storage.keys import session_key

from .helpers import rendered, until

pytestmark = pytest.mark.timeout(90)

CHEAP_HASH = dict(password_hash_passes=1, password_hash_memory_kib=1024)
PW = "correct horse"


@pytest.fixture
async def app(make_server):
    return await make_server(**CHEAP_HASH)


async def account_token(url: str, name: str) -> tuple[str, str]:
    """A guest that claims an account: (its player id, the account token)."""
    guest = await player(url, name)
    acct = await guest.request("claim", name=name, password=PW)
    assert acct["t"] == "account", acct
    await guest.close()
    return acct["player"], acct["token"]


async def revoke_all(url: str, token: str) -> None:
    c = await Raw.open(url)
    await c.hello(token=token)
    assert (await c.request("logout_all"))["t"] == "ok"
    await c.close()


async def test_a_refused_account_token_stops_and_leaves_the_file(app, tmp_path) -> None:
    url = app.ws_url
    _pid, token = await account_token(url, "ada")
    await revoke_all(url, token)
    path = tmp_path / "token"
    path.write_text(token + "\n")
    said: list[str] = []
    with pytest.raises(ServerError) as e:
        await open_session(url, "ada", str(path), reconnect=False, say=said.append)
    assert e.value.code == "bad-token"
    assert "account session ended" in e.value.message and "log in again" in e.value.message
    # how to log in again, for this token file, and how to give up the account instead
    assert f"solrace play --login NAME --token-file {path}" in e.value.message
    assert "solrace play --logout" in e.value.message and str(path) in e.value.message
    assert path.read_text() == token + "\n"  # the account's token stays: no guest stands in for it
    assert said == []


async def test_the_play_app_says_the_account_session_ended(app, tmp_path) -> None:
    """`solrace play`'s screen shows why it did not connect, instead of playing as a stranger."""
    url = app.ws_url
    _pid, token = await account_token(url, "ada")
    await revoke_all(url, token)
    path = tmp_path / "token"
    path.write_text(token + "\n")
    play = PlayApp(connector(url, "ada", str(path)))
    async with play.run_test(size=(110, 45)) as pilot:

        def shown() -> str:
            return rendered(play.query_one("#status")) + rendered(play.query_one("#board", BoardView))

        await until(pilot, lambda: "account session ended" in shown(), what="the message")
    assert path.read_text() == token + "\n"


async def test_a_live_account_token_resumes_the_account(app, tmp_path) -> None:
    url = app.ws_url
    pid, token = await account_token(url, "ada")
    path = tmp_path / "token"
    path.write_text(token + "\n")
    said: list[str] = []
    session = await open_session(url, None, str(path), reconnect=False, say=said.append)
    try:
        assert session.player == pid and session.name == "ada"
    finally:
        await session.close()
    assert path.read_text() == token + "\n" and said == []


async def test_a_refused_guest_token_makes_a_new_guest_and_says_so(app, tmp_path, capsys) -> None:
    url = app.ws_url
    old = await player(url, "bob")
    old_token = old.token
    assert old_token is not None
    await old.close()
    r = aioredis.Redis.from_url(app.settings.redis)
    try:
        await r.delete(session_key(old_token))  # the guest session expired
    finally:
        await r.aclose()
    path = tmp_path / "token"
    path.write_text(old_token + "\n")
    said: list[str] = []
    session = await open_session(url, "bob", str(path), reconnect=False, say=said.append)
    try:
        assert session.player and session.player != old.player
    finally:
        await session.close()
    new_token = path.read_text().strip()
    assert new_token and new_token != old_token and "." not in new_token
    assert len(said) == 1 and "new guest" in said[0], said

    # Without `say` (outside a terminal app): the one line goes to stderr.
    path.write_text("no-such-token\n")
    session = await open_session(url, "bob", str(path), reconnect=False)
    await session.close()
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "new guest" in err[0], err
    assert path.read_text().strip() not in ("no-such-token", new_token)


async def test_the_apps_show_the_new_guest_line_as_a_notification(app, tmp_path) -> None:
    """Inside a terminal app stdout and stderr are not the screen: the line the opening has
    to say (a new guest stood in) comes up as the app's notification, on the play app's
    screen as on the browsing apps'."""
    from client.tui.watch_app import WatchApp

    def toasts(a) -> str:
        return " ".join(rendered(t) for t in a.screen.query("Toast"))

    for make in (PlayApp, WatchApp):
        path = tmp_path / f"token-{make.__name__}"
        path.write_text("no-such-token\n")
        shown = make(connector(app.ws_url, "bob", str(path)))
        async with shown.run_test(size=(110, 45), notifications=True) as pilot:
            await until(pilot, lambda a=shown: "new guest" in toasts(a), what="the notification")
            assert "you now play as a new guest" in toasts(shown)
        assert path.read_text().strip() != "no-such-token"


def test_a_token_written_over_a_wider_file_leaves_it_readable_by_its_owner_only(tmp_path):
    """The mode given at creation does not apply to a file that exists: an account token written
    into one made readable by others stayed readable (a security audit)."""
    path = tmp_path / "token"
    path.write_text("a guest's token\n")
    path.chmod(0o644)
    write_token(path, "p1.secret")
    assert path.stat().st_mode & 0o777 == 0o600
    assert path.read_text() == "p1.secret\n"
