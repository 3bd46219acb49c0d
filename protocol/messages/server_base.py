"""The bases of the messages the server sends (docs/protocol.md), and their wire conventions.

Each server message is a `msgspec.Struct` tagged on the `t` field, like the
client's messages (client_messages.py), but they accept unknown keys, so an
older client keeps working when a newer server adds a field. `omit_defaults=True`
everywhere: optional fields that hold their default (`rid=None`,
`dup=False`, `view=None`, ...) are not sent. Fields the spec calls "int or
nil" have *no* default, so they are always present (as nil); the few of
them that a decoder must also accept absent (a row stored before the field
existed) keep a default in a struct with `omit_defaults=False`
(`ResultRow`), so they are sent all the same. Construct them with keywords.

The messages themselves, by what they serve: server_lobby.py (the session,
the race list, the queue, rematch offers), server_race.py (one race, from its
snapshot to its replay, and the solver's hints and analysis),
server_daily_arena.py, server_accounts.py (accounts, ratings, profiles);
server_union.py is their union, `ServerMessage`.
"""

from __future__ import annotations

import msgspec

# --- the bases of the nested (untagged) structures ----------------------------------


class Nested(msgspec.Struct, omit_defaults=True, kw_only=True):
    """Base of maps nested in server messages."""


class ResultRow(Nested, omit_defaults=False):
    """Base of the result rows (`end`/`replay` rankings, daily entries, history days):
    every field is sent, defaults included. `last_move_ms` is "int or nil", always
    present (docs/protocol.md §1, §3 `end`); its default only lets rows stored before
    it existed, and messages of servers that left it out, decode as nil."""


# --- the base of every server → client message -------------------------------------


class ServerMsg(
    msgspec.Struct,
    tag_field="t",
    omit_defaults=True,
    kw_only=True,
):
    """Base of every server → client message. `rid` only on direct replies."""

    rid: int | None = None
