"""Race links: what `solrace play --join` accepts besides a bare race id.

Accepted forms (the race id is the last path segment, or a ``race`` query or
fragment parameter):

* ``r8a1c…`` — a bare id (the server is ``--url``);
* ``ws://HOST:PORT/ws?race=ID`` or ``ws://HOST:PORT/ws#ID``;
* ``http://HOST:PORT/race/ID``, ``http://HOST:PORT/#race=ID``, ``…/?race=ID``
  (a web-client link; its ``#replay=ID`` and ``#watch=ID`` pages name the race
  the same way): the server is ``ws://HOST:PORT/ws`` (``wss`` for https);
* ``solrace://HOST:PORT/ID``.

A private race's link also carries its invite, the secret that opens it
(``…#race=ID&invite=SECRET`` or ``…?race=ID&invite=SECRET``): `parse_invite`.
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from protocol.messages import MAX_ID_LEN


def parse_link(text: str) -> tuple[str | None, str]:
    """(server websocket url or None, race id) from a race id or link; ValueError when it
    names no race, or nothing the server would take as a race id (the server's refusal named
    its message's field in the words of its decoder)."""
    text = text.strip()
    if "://" not in text:
        return None, _race_id(text.strip("/"), text)
    u = urlsplit(text)
    race = None
    for part in (u.query, u.fragment):
        q = parse_qs(part)
        for key in ("race", "replay", "watch"):  # the web client's race, replay and watch pages
            if key in q and race is None:
                race = q[key][0]
    if race is None and u.fragment and "=" not in u.fragment:
        race = u.fragment.strip("/").split("/")[-1]
    path = [p for p in u.path.split("/") if p]
    if race is None and path and path[-1] != "ws":
        race = path[-1]
    if not race:
        raise ValueError(f"no race id in {_quoted(text)}")
    scheme = {"https": "wss", "wss": "wss"}.get(u.scheme, "ws")
    return f"{scheme}://{u.netloc}/ws", _race_id(race, text)


def _race_id(race: str, text: str) -> str:
    if not race or len(race) > MAX_ID_LEN or not race.isprintable() or " " in race:
        raise ValueError(f"no race id in {_quoted(text)}")
    return race


def _quoted(text: str) -> str:
    return repr(text if len(text) <= 40 else text[:40] + "…")


def parse_invite(text: str) -> str | None:
    """The invite a private race's link carries (an ``invite`` query or fragment parameter)."""
    u = urlsplit(text.strip())
    for part in (u.query, u.fragment):
        q = parse_qs(part)
        if "invite" in q:
            return q["invite"][0]
    return None


def make_link(url: str, race: str, invite: str | None = None) -> str:
    """The link to share for a race on the server at websocket ``url`` (with a private race's invite)."""
    u = urlsplit(url)
    scheme = "https" if u.scheme == "wss" else "http"
    return f"{scheme}://{u.netloc}/#race={race}" + (f"&invite={invite}" if invite else "")
