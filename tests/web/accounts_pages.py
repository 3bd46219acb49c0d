"""Accounts and rated races through the web client's pages (tests/web/conftest.py `new_page`):
claim or log in to an account on the account page, and race a rated race between two pages."""

from __future__ import annotations

import re


def base(page) -> str:
    return page.url.split("#")[0]


def _account_form(page, form: str, name: str, password: str) -> str:
    """Fill and send the account page's `form` (claim-form, login-form); the profile of `name`
    shows, logged in. Returns the page's player id."""
    page.goto(base(page) + "#account")
    page.fill(f"#{form} input[name=account]", name)
    page.fill(f"#{form} input[name=password]", password)
    page.click(f"#{form} button[type=submit]")
    # Logged in, or the form says why not: a refused or timed-out request fails here with its
    # reason (a login once waited out the whole wait, and the failure did not say why).
    page.wait_for_selector(f"#logout-btn, #{form} .form-error")
    refused = page.locator(f"#{form} .form-error")
    assert not refused.count(), f"{form}: {refused.inner_text()}"
    page.wait_for_selector(f'#profile h1:has-text("{name}")')
    return page.evaluate("window.solrace.app.me.player")


def claim(page, name: str, password: str) -> str:
    """The page's player claims the account `name`; returns its player id."""
    return _account_form(page, "claim-form", name, password)


def login(page, name: str, password: str) -> str:
    """The page logs in to the account `name`; returns its player id."""
    return _account_form(page, "login-form", name, password)


def create_from_lobby(page, game: str) -> str:
    """On the lobby, `page` creates a race of `game` from its tile, with the tile's choices:
    the race page opens. Returns the race's id."""
    tile = f'.tile[data-game="{game}"]'
    page.click(f'{tile} [data-act="create"]')
    page.click(f'{tile} button[type="submit"]')
    page.wait_for_url(re.compile(r"#race="))
    found = re.search(r"#race=([\w-]+)", page.url)
    assert found, page.url
    return found.group(1)


def create_rated_race(host, game: str) -> tuple[str, str]:
    """On the lobby, with "Rated" ticked, `host` creates a race of `game`: the race page says it
    is rated. Returns the race's id and its share link."""
    rid = create_from_lobby(host, game)
    host.wait_for_selector("#race-rated")
    return rid, host.locator("#share-link").input_value()


def race_it_by_its_link(host, guest, guest_id: str, link: str) -> None:
    """`guest` (player `guest_id`) joins the rated race of `host` by its `link`; both ready, both
    finish at the start: each page shows the result."""
    guest.goto(link)
    guest.wait_for_selector("#ready-btn")
    guest.wait_for_selector("#race-rated")
    guest.click("#ready-btn")
    host.wait_for_selector(f'#players li[data-player="{guest_id}"] .pill.p-ready')
    host.click("#ready-btn")
    for page in (host, guest):
        page.wait_for_selector("#board .pile", timeout=20000)
        page.wait_for_selector("#finish-btn")
    for page in (host, guest):
        page.once("dialog", lambda d: d.accept())
        page.click("#finish-btn")
    for page in (host, guest):
        page.wait_for_selector("#result-panel", timeout=20000)
