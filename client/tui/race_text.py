"""What the terminal race app writes where the board is not (the lobby) and under it
(the final ranking): plain functions of the race model, no terminal."""

from __future__ import annotations

from rich.text import Text

from protocol.rules.facts import game_name

from .links import make_link
from .model import RaceModel
from .text import clock, ranking_lines


def lobby_text(m: RaceModel, server_url: str | None) -> str:
    """The race's seats and how to invite, before it starts (`server_url` makes links)."""
    if m.status == "none":
        return "choose a game…"
    if m.status == "queued":
        return f"Quick match: waiting for rivals for {game_name(m.game or '')}…"
    lines = [
        f"Race {m.race_id} · {game_name(m.game or '')} · {m.status}",
        f"seats {len(m.players)}/{m.seats} · time limit {clock(m.time_limit_s * 1000)}"
        + (" · private" if m.private else ""),
        "",
    ]
    for row in m.ordered():
        lines.append(
            f"  {'✔' if row.ready else '·'} {row.name}{'  (host)' if row.player == m.host else ''}"
            f"{'  (you)' if row.player == m.me else ''}"
        )
    if m.status == "lobby":
        lines += [
            "",
            "type 'ready' when set"
            + ("; 'start' begins with those present, once all are ready" if m.host == m.me else ""),
        ]
        if m.private and m.invite and server_url:
            # A private race opens only with its secret: share the whole link.
            lines += [f"invite: solrace play --join '{make_link(server_url, m.race_id or '', m.invite)}'"]
        elif not m.private:
            share = f"solrace play --join {m.race_id}"
            if server_url:
                share += f"   or the link {make_link(server_url, m.race_id or '')}"
            lines += [f"invite: {share}"]
    return "\n".join(lines)


def result_text(m: RaceModel) -> Text:
    """The final ranking (the player's own line highlighted) and the seed's commitment check."""
    t = Text()
    t.append("Final ranking\n", style="bold")
    for line, r in zip(ranking_lines(m.ranking or []), m.ranking or []):
        t.append(line + "\n", style="bold green" if r.get("player") == m.me else None)
    if m.seed is None:
        # A daily attempt's race is sealed (docs/protocol.md §5): the seed comes with the day's close.
        t.append(f"the seed stays secret until the day closes; its commitment: {m.commitment}")
        return t
    t.append(f"seed {m.seed}  ")
    ok = m.commitment_verified
    if ok:
        t.append("✓ sha256(seed) matches the commitment", style="green")
    elif ok is False:
        t.append(f"✗ sha256(seed) does NOT match the commitment {m.commitment}", style="bold red")
    return t
