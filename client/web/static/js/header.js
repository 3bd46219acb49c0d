// The page header and the notes under it: the player's name (or account), the connection dot, the
// nav's mark of the page's section, the banner while the connection is lost, and why this browser
// is no longer the player it was.
import { isAccountToken, storedName } from "./net.js";
import { arenaOf } from "./arena.js";
import { dailyOf } from "./daily_attempts.js";
import { $, h, toast } from "./dom.js";
import { dailyOfRoute } from "./replay_data.js";
import { app, conn } from "./state.js";

/** `reroute()` shows the current route again (the router's): the session note's link needs it. */
export function initHeader(reroute) {
  // The first Tab stop, shown only when focused: past the header's eight stops to the content
  // (a button: a link to #main would be taken for a route).
  $("#skip").addEventListener("click", () => $("#main").focus());
  const input = $("#name");
  input.value = storedName();
  const commit = () => {
    const v = input.value.trim();
    if (!v || (app.me && v === app.me.name) || input.readOnly) {
      input.value = app.me ? app.me.name : v;
      return;
    }
    localStorage.setItem("solrace.name", v);
    conn.reconnect();
  };
  input.addEventListener("change", commit);
  input.addEventListener("keydown", (e) => {
    if (e.key === "Enter") input.blur();
  });
  conn.on("_status", ({ status, delay }) => {
    const el = $("#net");
    el.className = `net ${status}`;
    const label = { online: "online", connecting: "connecting…", offline: delay ? "reconnecting…" : "offline" }[status];
    el.querySelector("span").textContent = label;
    document.body.classList.toggle("is-offline", status !== "online");
    if (status === "offline" && delay !== undefined) showConnLost(); // a reconnect is scheduled
  });
  // Logged in or a guest: an account's name is its username (hello ignores another name).
  const label = $("label.name-label");
  const mark = h("a", { class: "account-mark", id: "account-mark", href: "#account", hidden: true }, "account");
  input.after(mark);
  const showWho = (account, name) => {
    input.readOnly = account;
    input.classList.toggle("is-account", account);
    input.title = account ? `Logged in as ${name}: an account's name is its username (log out to play under another name)` : "";
    if (label) label.textContent = account ? "Logged in as" : "Name";
    mark.hidden = !account;
    mark.title = account ? `This browser is logged in to the account ${name}` : "";
    document.body.classList.toggle("logged-in", account);
  };
  conn.on("welcome", (w) => {
    showWho(isAccountToken(w.token), w.name);
    if (isAccountToken(w.token)) hideSessionNote();
    // The server's own longest name (its MAX_NAME may be below the wire format's 24 of index.html)
    const most = w.limits && w.limits.MAX_NAME;
    if (Number.isInteger(most) && most > 0) input.maxLength = most;
  });
  conn.on("_name_refused", ({ name, code, message }) => {
    if (code === "name-taken") toast(`"${name}" is the name of an account, a bot or the server: choose another name.`, "error", 6000);
    // (the server's words name the field: "`name`: must be printable, …")
    else toast(`The server refused that name: ${message.replace(/^`name`:\s*/, "") || "choose another name"}.`, "error", 6000);
  });
  conn.on("_held", ({ why, delay }) => showHeld(why, delay));
  conn.on("_session_lost", ({ account }) => {
    if (account) {
      input.value = storedName();
      showWho(false, "");
    }
    showSessionNote(account, reroute);
  });
}

// The nav's item (its `data-nav`) of each kind of route; a race's pages are another matter (navSection).
const NAV_SECTIONS = { lobby: "lobby", watchlist: "watch", watch: "watch", daily: "daily", arena: "arena", howto: "howto", account: "account", profile: "account", ratings: "account" };

/** The nav's item of the page shown (app.route): its section, or null. A race's page and its
 *  replay belong to the section that holds the race, an arena's or the daily challenge's, else
 *  to none: marked "Lobby" (the replay "Watch", the live races), they told a player on a race
 *  that they were elsewhere. */
function navSection(r) {
  if (r.kind === "race" || r.kind === "replay") {
    if (arenaOf(r.id)) return "arena";
    if (dailyOf(r.id) || (r.kind === "replay" && dailyOfRoute(location.hash))) return "daily";
    return null;
  }
  if (r.kind === "watch" && r.arena) return "arena"; // following the arena's featured race
  return NAV_SECTIONS[r.kind] || null;
}

/** Mark the nav's item of the page shown: at each route, and on a race's page at each redraw (a
 *  race opened from another device is known as an arena's or a daily attempt by its snapshot,
 *  race_sync.js). `aria-current` says it too: "page" on the section's own page, "true" inside it. */
export function markNav() {
  const r = app.route;
  const section = navSection(r);
  const own = ["lobby", "watchlist", "daily", "howto", "account"].includes(r.kind) || (r.kind === "arena" && !r.id);
  for (const a of document.querySelectorAll(".topnav a")) {
    const on = a.dataset.nav === section;
    a.classList.toggle("on", on);
    if (on) a.setAttribute("aria-current", own ? "page" : "true");
    else a.removeAttribute("aria-current");
  }
}

/** Why this browser is not the player it was (docs/protocol.md §9): a dismissable note, not a toast (it has a link to follow). */
function showSessionNote(account, reroute) {
  let el = $("#session-note");
  if (!el) {
    el = h("div", { class: "banner session-note", id: "session-note", role: "status", hidden: true });
    $("#banner").after(el);
  }
  const login = (e) => {
    if (location.hash === "#account") {
      e.preventDefault();
      reroute(); // already there: show the account page as a guest's (with its Log in form)
    }
  };
  const close = h("button", { class: "btn small ghost", id: "session-note-close", onclick: () => hideSessionNote() }, "Dismiss");
  el.dataset.kind = account ? "logged-out" : "guest-expired";
  el.replaceChildren(
    account
      ? h("div", { class: "queue" }, h("span", {}, "You were logged out — log in again."), h("a", { class: "btn small primary", id: "relogin-link", href: "#account", onclick: login }, "Log in"), close)
      : h(
          "div",
          { class: "queue" },
          h("span", {}, "Your guest session expired after a week without play: your history stays with that old guest. Claim an account to keep your history next time."),
          h("a", { class: "btn small primary", id: "claim-link", href: "#account", onclick: login }, "Claim an account"),
          close,
        ),
  );
  // It stays on screen until dismissed, however far the page is scrolled, and above the
  // connection banner that follows it ("Reconnected." would otherwise cover it).
  el.style.top = `${belowHeader()}px`;
  el.hidden = false;
  const conn = $("#conn-banner");
  if (!conn.hidden) placeConnBanner(conn);
}

function hideSessionNote() {
  const el = $("#session-note");
  if (el) el.hidden = true;
}

/** The banner while the connection is lost: the header dot alone was easy to miss. */
function showConnLost() {
  clearTimeout(app.connNoteTimer);
  const el = $("#conn-banner");
  const racing = app.route.kind === "race" && app.mode === "player" && app.race && app.race.status === "running";
  el.className = "conn-banner lost";
  el.replaceChildren(
    h("span", { class: "spinner" }),
    h("b", {}, app.everOnline ? "Connection lost — reconnecting…" : "Cannot reach the server — retrying…"),
    racing ? h("span", { class: "conn-more" }, "The race clock keeps running; your board comes back as the server has it.") : null,
  );
  placeConnBanner(el);
  app.connLost = true;
}

// Why the server refuses this page for now (net.js `hold`), and what the player can do.
const HELD_WORDS = {
  "too-many-tabs": "Too many tabs or windows of this player are open: close one, then press Retry.",
  "too-many-from-address": "Too many solrace connections from your network are open: close some tabs, then press Retry.",
  "rate-limited": "Too many new players from your network right now.",
  "bad-version": "This page is out of date for the server: reload the page.",
};

/** The banner while the server refuses this page (not a lost connection: it is there). */
function showHeld(why, delay) {
  clearTimeout(app.connNoteTimer);
  const el = $("#conn-banner");
  el.className = "conn-banner lost held";
  const when = delay === null ? null : `Trying again in ${Math.ceil(delay / 1000)} s.`;
  el.replaceChildren(
    h("b", {}, HELD_WORDS[why] || "The server refused this page for now."),
    when ? h("span", { class: "conn-more" }, when) : null,
    why === "bad-version"
      ? h("button", { class: "btn small", id: "conn-reload", onclick: () => location.reload() }, "Reload")
      : h("button", { class: "btn small", id: "conn-retry", onclick: () => conn.reconnect() }, "Retry"),
  );
  placeConnBanner(el);
  app.connLost = true; // "Reconnected." once the server takes the page
}

/** After a loss, a short note once the page is back in step with the server. */
export function showConnBack() {
  if (!app.connLost) return;
  app.connLost = false;
  const el = $("#conn-banner");
  el.className = "conn-banner back";
  el.replaceChildren(h("b", {}, app.route.kind === "race" && app.you ? "Reconnected — your board is up to date." : "Reconnected."));
  placeConnBanner(el);
  clearTimeout(app.connNoteTimer);
  app.connNoteTimer = setTimeout(() => (el.hidden = true), 3000);
}

/** Where a note under the header stays on screen: below the header while it is sticky, else at the top (phones). */
function belowHeader() {
  const head = $("header.top");
  return getComputedStyle(head).position === "sticky" ? head.offsetHeight : 0;
}

/** Under the header (and under the session note, if shown), where it stays on screen. */
function placeConnBanner(el) {
  const note = $("#session-note");
  const under = note && !note.hidden ? note.getBoundingClientRect().bottom : 0;
  el.style.top = `${Math.max(belowHeader(), under)}px`;
  el.hidden = false;
}
