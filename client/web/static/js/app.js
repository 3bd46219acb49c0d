// solrace browser client: lobby, races, spectating, daily challenge.
// Plain ES modules, no framework. Speaks docs/protocol.md over /ws.
import { Connection, isAccountToken, storedName } from "./net.js";
import { GAMES, GAME_IDS, gameName } from "./games.js";
import { Board, moveMarks } from "./board.js";
import { parseView } from "./cards.js";
import { sha256Hex } from "./sha256.js";
import { DailyPage, dailyOf } from "./daily.js";
import { ArenaPage, arenaOf } from "./arena.js";
import { ReplayPage } from "./replay.js";
import { HowtoPage, legendEl } from "./howto.js";
import { analysisItem, countText, errorText as errText, moveText, timeCell } from "./words.js";
import { AccountPage, loggedIn } from "./accounts.js";
import { BOT_LEVELS, acceptRematch, addBot, isBot, raceBot, rematch } from "./botrace.js";

const conn = new Connection();
const $ = (sel, root = document) => root.querySelector(sel);

const app = {
  me: null, // welcome message
  route: { kind: "lobby", id: null },
  queued: null, // {game, seats, rated} while in quick-match
  rated: localStorage.getItem("solrace.rated") === "1", // the lobby's "Rated" toggle (accounts only), kept
  createOpen: null, // game id whose "create race" form is open in the lobby
  formChoices: {}, // what the player chose in a lobby form, kept across re-renders: "create:ID" -> {name: value}
  botOpen: null, // game id whose "race a bot" form is open in the lobby
  rematchOffer: null, // the last `rematch` offer: {race, rematch, by, name}
  daily: { supported: null },
  invites: {}, // race id -> a private race's invite (from its link, or handed to us as a player)
  // current race page
  raceId: null,
  race: null, // latest snapshot
  mode: null, // "player" | "spectator" | "visitor"
  lastVer: 0,
  you: null, // {n, view, legal, home, status}
  end: null, // end event (or built from a finished snapshot)
  verify: null, // {ok, hex, how}
  board: null,
  boards: new Map(), // spectator boards: player -> {n, view, board}
  boardsAt: null,
  error: null,
  raceList: [],
  raceGames: {}, // race id -> game, for the races we left before their end
  raceStatus: {}, // race id -> status (lobby, countdown, running), likewise: the lobby's "Your races"
};
window.solrace = { app, conn };

// ---------------------------------------------------------------- helpers

function h(tag, attrs = {}, ...kids) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") el.className = v;
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "dataset") Object.assign(el.dataset, v);
    // Through the CSSOM, never a `style` attribute: the Content-Security-Policy refuses inline
    // style attributes (style-src without 'unsafe-inline'), not properties set from a script.
    else if (k === "style") {
      if (typeof v !== "object") throw new TypeError("h(): give style as {property: value}");
      for (const [prop, val] of Object.entries(v)) el.style.setProperty(prop, String(val));
    }
    else if (k === "html") el.innerHTML = v;
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const kid of kids.flat()) {
    if (kid === null || kid === undefined || kid === false) continue;
    el.appendChild(kid instanceof Node ? kid : document.createTextNode(String(kid)));
  }
  return el;
}

function toast(text, kind = "info", ms = 3500) {
  const t = h("div", { class: `toast ${kind}` }, text);
  $("#toasts").appendChild(t);
  setTimeout(() => t.classList.add("gone"), ms);
  setTimeout(() => t.remove(), ms + 400);
}

function fmtClock(ms) {
  if (ms === null || ms === undefined || !isFinite(ms)) return "–:––";
  const neg = ms < 0;
  let s = Math.floor(Math.abs(ms) / 1000);
  const hh = Math.floor(s / 3600);
  s -= hh * 3600;
  const mm = Math.floor(s / 60);
  const ss = s - mm * 60;
  const body = hh ? `${hh}:${String(mm).padStart(2, "0")}:${String(ss).padStart(2, "0")}` : `${mm}:${String(ss).padStart(2, "0")}`;
  return (neg ? "-" : "") + body;
}

const STATUS_LABEL = {
  waiting: "waiting",
  ready: "ready",
  playing: "playing",
  won: "won",
  finished: "finished",
  timeout: "time up",
};

// A private race opens only with its invite: its links carry it (`#race=ID&invite=SECRET`).
function inviteSuffix(id) {
  return app.invites[id] ? `&invite=${app.invites[id]}` : "";
}

function raceLink(id) {
  return `${location.origin}${location.pathname}#race=${id}${inviteSuffix(id)}`;
}

function withInvite(msg) {
  const invite = app.invites[msg.race];
  return invite ? { ...msg, invite } : msg;
}

function keepInvite(snap) {
  if (snap && snap.invite) app.invites[snap.race] = snap.invite;
}

function myId() {
  return app.me && app.me.player;
}

function mySeat(race) {
  return race && race.players ? race.players.find((p) => p.player === myId()) : null;
}

// ---------------------------------------------------------------- header

function initHeader() {
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
  });
  conn.on("_session_lost", ({ account }) => {
    if (account) {
      input.value = storedName();
      showWho(false, "");
    }
    showSessionNote(account);
  });
}

/** Why this browser is not the player it was (docs/protocol.md §9): a dismissable note, not a toast (it has a link to follow). */
function showSessionNote(account) {
  let el = $("#session-note");
  if (!el) {
    el = h("div", { class: "banner session-note", id: "session-note", role: "status", hidden: true });
    $("#banner").after(el);
  }
  const login = (e) => {
    if (location.hash === "#account") {
      e.preventDefault();
      onRoute(); // already there: show the account page as a guest's (with its Log in form)
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
  el.hidden = false;
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

/** After a loss, a short note once the page is back in step with the server. */
function showConnBack() {
  if (!app.connLost) return;
  app.connLost = false;
  const el = $("#conn-banner");
  el.className = "conn-banner back";
  el.replaceChildren(h("b", {}, app.route.kind === "race" && app.you ? "Reconnected — your board is up to date." : "Reconnected."));
  placeConnBanner(el);
  clearTimeout(app.connNoteTimer);
  app.connNoteTimer = setTimeout(() => (el.hidden = true), 3000);
}

/** Under the header where it stays on screen (sticky), at the top where it scrolls away (phones). */
function placeConnBanner(el) {
  const head = $("header.top");
  el.style.top = getComputedStyle(head).position === "sticky" ? `${head.offsetHeight}px` : "0px";
  el.hidden = false;
}

function setBanner(content) {
  const b = $("#banner");
  if (!content) {
    b.hidden = true;
    b.replaceChildren();
    return;
  }
  b.hidden = false;
  b.replaceChildren(content);
}

function renderQueueBanner() {
  if (!app.queued) return setBanner(null);
  setBanner(
    h(
      "div",
      { class: "queue" },
      h("span", { class: "spinner" }),
      `Looking for ${app.queued.seats - 1 === 1 ? "a rival" : `${app.queued.seats - 1} rivals`} for ${app.queued.rated ? "a rated " : ""}${gameName(app.queued.game)}… `,
      app.queued.rated ? null : quickBotNote(),
      h("button", { class: "btn small ghost", id: "unqueue", onclick: unqueue }, "Cancel"),
    ),
  );
}

/** How long before a bot takes the empty seats of a quick-match (the server's QUICK_BOT_AFTER_S). */
function quickBotNote() {
  const after = app.me && app.me.limits && app.me.limits.QUICK_BOT_AFTER_S;
  return after ? h("span", { class: "muted small" }, `(a bot joins after ${after} s if nobody comes) `) : null;
}

// ---------------------------------------------------------------- routing

function parseHash() {
  const hash = decodeURIComponent(location.hash.replace(/^#\/?/, ""));
  let m;
  if ((m = /^race=([\w-]+)(?:&invite=([\w-]+))?/.exec(hash))) return { kind: "race", id: m[1], invite: m[2] || null };
  if ((m = /^watch=([\w-]+)(?:&invite=([\w-]+))?(?:&arena=([\w-]+))?/.exec(hash))) return { kind: "watch", id: m[1], invite: m[2] || null, arena: m[3] || null };
  if (hash === "watch") return { kind: "watchlist", id: null };
  if ((m = /^replay=([\w-]+)(?:&step=(\d+))?/.exec(hash))) return { kind: "replay", id: m[1], step: m[2] ? parseInt(m[2], 10) : 0 };
  if ((m = /^howto(?:=([\w-]+))?/.exec(hash))) return { kind: "howto", id: m[1] || null };
  if ((m = /^arena=([\w-]+)/.exec(hash))) return { kind: "arena", id: m[1] };
  if (hash === "arenas") return { kind: "arena", id: null };
  if ((m = /^(account|profile|ratings)(?:=([\w-]+))?$/.exec(hash))) return { kind: m[1], id: m[2] || null };
  if ((m = /^daily(?:=([\w-]+))?(?:&date=(\d{4}-\d{2}-\d{2}))?/.exec(hash))) return { kind: "daily", id: m[1] || null, date: m[2] || null };
  return { kind: "lobby", id: null };
}

function leaveRoute(next) {
  const prev = app.route;
  if (prev.kind === "watch" && prev.id && !(next.kind === "watch" && next.id === prev.id)) {
    if (conn.status === "online") conn.request({ t: "unspectate", race: prev.id }).catch(() => {});
  }
  if (prev.kind === "daily" && next.kind !== "daily") dailyPage.leave();
  if (prev.kind === "arena" && next.kind !== "arena") arenaPage.leave();
  if (prev.kind === "replay") replayPage.leave();
  if (prev.kind === "howto") howtoPage.leave();
  if (["account", "profile", "ratings"].includes(prev.kind)) accountPage.leave();
  if (prev.kind === "race" && app.race && app.race.status !== "finished" && mySeat(app.race) && app.me) {
    // left while the race runs (our game over, say): the lobby lists it until it ends
    app.me.races = [...new Set([...(app.me.races || []), app.race.race])];
    app.raceGames[app.race.race] = app.race.game;
    app.raceStatus[app.race.race] = app.race.status;
  }
  if (app.board) {
    app.board.destroy();
    app.board = null;
  }
  for (const b of app.boards.values()) if (b.board) b.board.destroy();
  app.boards.clear();
  clearInterval(app.listTimer);
}

function onRoute() {
  const next = parseHash();
  leaveRoute(next);
  app.route = next;
  app.raceId = next.kind === "race" || next.kind === "watch" ? next.id : null;
  if (app.raceId && next.invite) app.invites[app.raceId] = next.invite;
  app.race = null;
  app.you = null;
  app.end = null;
  app.verify = null;
  app.mode = null;
  app.lastVer = 0;
  app.error = null;
  app.boardsAt = null;
  const navKey = { lobby: "lobby", race: "lobby", watchlist: "watch", watch: "watch", daily: "daily", arena: "arena", replay: "watch", howto: "howto", account: "account", profile: "account", ratings: "account" }[next.kind];
  document.querySelectorAll(".topnav a").forEach((a) => a.classList.toggle("on", a.dataset.nav === navKey));
  document.body.dataset.route = next.kind;
  if (next.kind === "howto") howtoPage.open(next.id || GAME_IDS[0]);
  render();
  if (conn.status === "online") enterRoute();
}

/** Fetch what the current route needs (also after every reconnect). */
function enterRoute() {
  const r = app.route;
  if (r.kind === "lobby" || r.kind === "watchlist") {
    refreshRaces();
    clearInterval(app.listTimer);
    app.listTimer = setInterval(refreshRaces, 4000);
  } else if (r.kind === "race") {
    return openRace(r.id);
  } else if (r.kind === "watch") {
    return openWatch(r.id);
  } else if (r.kind === "daily") {
    dailyPage.open(r.id || localStorage.getItem("solrace.dailyGame") || GAME_IDS[0], r.date);
    if (r.id) localStorage.setItem("solrace.dailyGame", r.id);
  } else if (r.kind === "arena") {
    if (r.id) arenaPage.open(r.id);
    else arenaPage.openList();
  } else if (r.kind === "account" || r.kind === "profile" || r.kind === "ratings") {
    accountPage.open(r.kind, r.id);
  } else if (r.kind === "replay") {
    // the viewer's own hash updates (step) are not route changes
    if (replayPage.id !== r.id || !replayPage.data) replayPage.open(r.id, r.step);
  }
}

function render() {
  const r = app.route;
  if (r.kind === "lobby") renderLobby();
  else if (r.kind === "watchlist") renderWatchList();
  else if (r.kind === "race") renderRace();
  else if (r.kind === "watch") renderWatch();
  else if (r.kind === "daily") dailyPage.render();
  else if (r.kind === "arena") arenaPage.render();
  else if (r.kind === "replay") replayPage.render();
  else if (r.kind === "howto") howtoPage.render();
  else if (r.kind === "account" || r.kind === "profile" || r.kind === "ratings") accountPage.render();
}

// ---------------------------------------------------------------- lobby

async function refreshRaces() {
  if (conn.status !== "online") return;
  try {
    const reply = await conn.request({ t: "races" });
    app.raceList = reply.races || [];
    app.raceList.forEach(noteMyRace);
    const box = $("#race-list");
    if (box) box.replaceChildren(raceListEl());
    const mine = $("#my-races");
    if (mine) mine.replaceWith(myRacesEl());
  } catch (e) {
    /* shown on next refresh */
  }
}

/** Note the game and status of a race we sit in (from its snapshot, the race list or its start), for "Your races". */
function noteMyRace(r) {
  if (!r || !r.race || !app.me || !(app.me.races || []).includes(r.race)) return;
  if (r.game) app.raceGames[r.race] = r.game;
  if (r.status) app.raceStatus[r.race] = r.status;
}
conn.on("race", noteMyRace);
conn.on("start", (m) => noteMyRace({ race: m.race, status: "running" }));

/** The lobby's "Your races": a button per unfinished race we sit in, with its game and status once known. */
function myRacesEl() {
  const ids = (app.me && app.me.races) || [];
  if (!ids.length) return h("p", { class: "resume", id: "my-races", hidden: true });
  return h(
    "p",
    { class: "resume", id: "my-races" },
    "Your races: ",
    ids.map((id) => {
      const game = app.raceGames[id];
      const status = app.raceStatus[id];
      return h(
        "a",
        { class: "btn small my-race", href: `#race=${id}${inviteSuffix(id)}`, title: `race ${id}`, dataset: { race: id } },
        game ? gameName(game) : `Race ${id.slice(0, 6)}…`,
        status && status !== "finished" ? h("span", { class: `pill p-${status}` }, status) : null,
      );
    }),
  );
}

function raceListEl() {
  const races = app.raceList;
  if (!races.length) return h("p", { class: "muted" }, "No public race right now. Start one!");
  return h(
    "table",
    { class: "races" },
    h("thead", {}, h("tr", {}, h("th", {}, "Game"), h("th", {}, "Players"), h("th", {}, "Status"), h("th", {}, ""))),
    h(
      "tbody",
      {},
      races.map((r) =>
        h(
          "tr",
          { dataset: { race: r.race } },
          h("td", {}, gameName(r.game), r.rated ? h("span", { class: "pill rated" }, "rated") : null),
          h(
            "td",
            {},
            h("div", { class: "who-list" }, (r.players || []).map((p) =>
              h(
                "span",
                { class: "mini-player" },
                p.name,
                r.status !== "lobby" ? h("span", { class: "mini-bar" }, h("i", { style: { width: `${Math.round((100 * p.home) / (r.total || 1))}%` } })) : null,
              ),
            )),
          ),
          h("td", {}, h("span", { class: `pill p-${r.status}` }, r.status), r.spectators ? h("span", { class: "muted small" }, ` · ${r.spectators} watching`) : null),
          h(
            "td",
            { class: "actions" },
            r.status === "lobby" ? h("a", { class: "btn small", href: `#race=${r.race}` }, "Join") : null,
            h("a", { class: "btn small ghost", href: `#watch=${r.race}` }, "Watch"),
          ),
        ),
      ),
    ),
  );
}

// A lobby form's choices survive the lobby's re-renders (welcome, daily probe, reconnects):
// a re-render used to put them back to their defaults under the player's eyes.
function keepChoices(key) {
  return (e) => {
    const f = e.currentTarget;
    app.formChoices[key] = Object.fromEntries(
      [...f.elements].filter((el) => el.name).map((el) => [el.name, el.type === "checkbox" ? el.checked : el.value]),
    );
  };
}

function chosen(key, name, fallback) {
  const c = app.formChoices[key];
  return c && name in c ? c[name] : fallback;
}

function renderLobby() {
  const main = $("#main");
  const tiles = GAME_IDS.map((id) => {
    const g = GAMES[id];
    const ck = `create:${id}`;
    const bk = `bot:${id}`;
    const form = h(
      "form",
      {
        class: "create-form",
        // The lobby re-renders (welcome, daily probe, reconnects): an open form stays open.
        hidden: app.createOpen !== id,
        onchange: keepChoices(ck),
        onsubmit: (e) => {
          e.preventDefault();
          const f = e.target;
          app.createOpen = null;
          createRace(id, parseInt(f.seats.value, 10), parseInt(f.limit.value, 10) * 60, f.private.checked);
        },
      },
      h(
        "label",
        {},
        "Seats ",
        h("select", { name: "seats" }, [1, 2, 3, 4, 5, 6, 7, 8].map((n) => h("option", { value: n, selected: n === +chosen(ck, "seats", 2) }, n))),
      ),
      h(
        "label",
        {},
        "Clock ",
        h(
          "select",
          { name: "limit" },
          [2, 5, 10, 15, 20, 30, 60].map((n) => h("option", { value: n, selected: n === +chosen(ck, "limit", 10) }, `${n} min`)),
        ),
      ),
      h("label", { class: "check" }, h("input", { type: "checkbox", name: "private", checked: chosen(ck, "private", false) }), " private"),
      h("button", { class: "btn", type: "submit" }, "Create"),
    );
    const botForm = h(
      "form",
      {
        class: "create-form bot-form",
        hidden: app.botOpen !== id,
        onchange: keepChoices(bk),
        onsubmit: (e) => {
          e.preventDefault();
          app.botOpen = null;
          startBotRace(id, e.target.level.value, parseInt(e.target.limit.value, 10) * 60);
        },
      },
      h("label", {}, "Level ", h("select", { name: "level" }, BOT_LEVELS.map(([v, label]) => h("option", { value: v, selected: v === chosen(bk, "level", "greedy") }, label)))),
      h("label", {}, "Clock ", h("select", { name: "limit" }, [2, 5, 10].map((n) => h("option", { value: n, selected: n === +chosen(bk, "limit", 5) }, `${n} min`)))),
      h("button", { class: "btn primary", type: "submit", dataset: { act: "bot-go" } }, "Race"),
    );
    return h(
      "section",
      { class: "tile", dataset: { game: id } },
      h("div", { class: "tile-head" }, h("h2", {}, g.name), h("span", { class: "muted small" }, `${g.decks} decks · ${g.total} cards`)),
      h("div", { class: "fan-deco" }, decoCards(id)),
      h("p", { class: "blurb" }, g.blurb),
      h(
        "div",
        { class: "tile-actions" },
        h("button", { class: "btn primary", onclick: () => quick(id), dataset: { act: "quick" } }, "Quick match"),
        h(
          "button",
          {
            class: "btn",
            dataset: { act: "create" },
            onclick: () => {
              form.hidden = !form.hidden;
              app.createOpen = form.hidden ? null : id;
            },
          },
          "Create race…",
        ),
        h(
          "button",
          {
            class: "btn",
            dataset: { act: "bot" },
            onclick: () => {
              botForm.hidden = !botForm.hidden;
              app.botOpen = botForm.hidden ? null : id;
            },
          },
          "Race a bot…",
        ),
        app.daily.supported ? h("a", { class: "btn ghost", href: `#daily=${id}`, dataset: { act: "daily" } }, "Daily") : null,
        h("a", { class: "btn ghost", href: `#howto=${id}`, dataset: { act: "howto" } }, "How to play"),
      ),
      form,
      botForm,
    );
  });
  main.replaceChildren(
    h(
      "div",
      { class: "lobby" },
      h(
        "section",
        { class: "hero" },
        h("h1", {}, "Race the same deal."),
        h("p", {}, "Everyone gets the same shuffled layout. Move fastest, get every card home first. The server checks every move and proves the deal was fair."),
        h(
          "form",
          {
            class: "join-form",
            onsubmit: (e) => {
              e.preventDefault();
              joinByText(e.target.link.value);
            },
          },
          h("input", { name: "link", placeholder: "Paste a race link or id to join", autocomplete: "off" }),
          h("button", { class: "btn", type: "submit" }, "Join"),
        ),
        loggedIn()
          ? h(
              "label",
              { class: "check rated-toggle", title: "Rated races are between accounts, on the server's clock; they change your rating" },
              h("input", { type: "checkbox", id: "rated-toggle", checked: app.rated, onchange: (e) => {
                app.rated = e.target.checked;
                localStorage.setItem("solrace.rated", app.rated ? "1" : "0");
              } }),
              " Rated (quick match and new races)",
            )
          : null,
        myRacesEl(),
      ),
      h("div", { class: "tiles" }, tiles),
      h("section", { class: "panel" }, h("h2", {}, "Live races"), h("div", { id: "race-list" }, raceListEl())),
    ),
  );
}

function decoCards(game) {
  const sets = {
    "racing-aces": ["As", "6h", "7d", "Kc"],
    "double-aces-and-kings": ["Ah", "Ad", "Ks", "Kh"],
    "rouge-et-noir": ["Kd", "Qs", "Jh", "Tc"],
    "fours-up": ["4c", "4d", "4h", "4s"],
  }[game];
  return sets.map((c, i) => {
    const red = "dh".includes(c[1]);
    const s = { c: "♣", d: "♦", h: "♥", s: "♠" }[c[1]];
    return h("span", { class: `deco ${red ? "red" : ""}`, style: { "--i": i } }, (c[0] === "T" ? "10" : c[0]) + s);
  });
}

async function quick(game, seats = 2, rated = app.rated && loggedIn()) {
  if (app.queued) await unqueue();
  try {
    await conn.request(rated ? { t: "quick", game, seats, rated } : { t: "quick", game, seats });
    app.queued = { game, seats, rated };
    renderQueueBanner();
  } catch (e) {
    toast(`Quick match failed: ${errText(e)}`, "error");
  }
}

async function unqueue() {
  const q = app.queued;
  app.queued = null;
  renderQueueBanner();
  if (q) conn.request({ t: "unqueue", game: q.game }).catch(() => {});
}

async function createRace(game, seats, limit, priv, rated = app.rated && loggedIn()) {
  try {
    // A rated race runs on the server's clock and has at least 2 seats.
    const msg = rated ? { t: "create", game, seats: Math.max(2, seats), private: priv, rated } : { t: "create", game, seats, time_limit_s: limit, private: priv };
    const race = await conn.request(msg);
    keepInvite(race);
    app.pendingSnapshot = race;
    location.hash = `race=${race.race}${inviteSuffix(race.race)}`;
  } catch (e) {
    toast(`Could not create the race: ${errText(e)}`, "error");
  }
}

async function startBotRace(game, level, limit) {
  try {
    const race = await raceBot(conn, game, level, limit);
    app.pendingSnapshot = race;
    location.hash = `race=${race.race}`;
  } catch (e) {
    toast(`Could not start a race with a bot: ${errText(e)}`, "error");
  }
}

async function askRematch(raceId) {
  try {
    const race = await rematch(conn, raceId);
    app.rematchOffer = null;
    setBanner(null);
    app.pendingSnapshot = race;
    location.hash = `race=${race.race}`;
  } catch (e) {
    toast(`No rematch: ${errText(e)}`, "error");
  }
}

async function takeRematch(offer) {
  try {
    const race = await acceptRematch(conn, offer.rematch, offer.invite);
    app.rematchOffer = null;
    setBanner(null);
    app.pendingSnapshot = race;
    location.hash = `race=${race.race}`;
  } catch (e) {
    app.rematchOffer = null;
    setBanner(null);
    toast(`Could not join the rematch: ${errText(e)}`, "error");
  }
}

function renderRematchBanner() {
  const offer = app.rematchOffer;
  if (!offer || (app.route.kind === "race" && app.raceId === offer.race)) return; // the result panel shows it
  setBanner(
    h(
      "div",
      { class: "queue rematch-offer" },
      `${offer.name} offers a rematch. `,
      h("button", { class: "btn small primary", id: "accept-rematch-banner", onclick: () => takeRematch(offer) }, "Accept"),
      " ",
      h("button", { class: "btn small ghost", onclick: () => ((app.rematchOffer = null), setBanner(null)) }, "No thanks"),
    ),
  );
}

function joinByText(text) {
  const t = (text || "").trim();
  const m = /(?:race=|watch=)?([\w-]+)(?:&invite=([\w-]+))?\s*$/.exec(t);
  if (!m) return toast("That is not a race link", "error");
  location.hash = `race=${m[1]}${m[2] ? `&invite=${m[2]}` : ""}`;
}

// ---------------------------------------------------------------- race page

function applySnapshot(snap) {
  if (!snap || snap.race !== app.raceId) return;
  keepInvite(snap);
  app.race = snap;
  app.lastVer = Math.max(app.lastVer, snap.ver || 0);
  if (snap.status === "finished" && (snap.seed || snap.ranking) && !app.end) {
    setEnd({ race: snap.race, ver: snap.ver, seed: snap.seed, ranking: snap.ranking || [] });
  }
}

function checkVer(msg) {
  if (typeof msg.ver !== "number") return;
  if (app.lastVer && msg.ver > app.lastVer + 1) {
    resync(app.lastVer);
  }
  app.lastVer = Math.max(app.lastVer, msg.ver);
}

async function resync(since) {
  const id = app.raceId;
  if (!id || conn.status !== "online" || app.resyncing) return;
  app.resyncing = true;
  try {
    const msg = withInvite({ t: "resync", race: id });
    if (since) msg.since = since;
    const st = await conn.request(msg);
    applyState(st);
  } catch (e) {
    if (e.code !== "disconnected") toast(`Resync failed: ${errText(e)}`, "error");
  } finally {
    app.resyncing = false;
  }
}

function applyState(st) {
  if (!st || !st.race || st.race.race !== app.raceId) return;
  app.lastVer = 0;
  applySnapshot(st.race);
  if (st.you) {
    app.mode = "player";
    app.you = { ...st.you };
  }
  renderRace();
}

async function openRace(id) {
  if (app.pendingSnapshot && app.pendingSnapshot.race === id) {
    applySnapshot(app.pendingSnapshot);
    app.pendingSnapshot = null;
    app.mode = mySeat(app.race) ? "player" : app.mode;
    renderRace();
  }
  let st = null;
  try {
    const msg = withInvite({ t: "resync", race: id });
    if (app.lastVer) msg.since = app.lastVer;
    st = await conn.request(msg);
  } catch (e) {
    if (app.route.kind !== "race" || app.raceId !== id) return; // left meanwhile
    if (e.code === "no-such-race") {
      app.error = "There is no such race (it may have expired).";
      return renderRace();
    }
    if (e.code === "private-race") {
      app.error = "This race is private: open it with the full link its players share (it carries the invite).";
      return renderRace();
    }
    if (e.code === "disconnected") return;
  }
  // The player may have left the page while the resync was on its way (app.race is then null).
  if (app.route.kind !== "race" || app.raceId !== id) return;
  if (st && st.race) {
    applyState(st);
    if (app.you || mySeat(app.race)) {
      app.mode = "player";
      if (app.race.status === "running" && !app.you) resync();
      return renderRace();
    }
    if (app.race.status === "finished") {
      app.mode = "visitor";
      return renderRace();
    }
    if (app.race.status !== "lobby") {
      location.hash = `watch=${id}${inviteSuffix(id)}`;
      return;
    }
  }
  // not seated: take a seat
  try {
    const snap = await conn.request(withInvite({ t: "join", race: id }));
    if (app.route.kind !== "race" || app.raceId !== id) return; // left meanwhile
    app.mode = "player";
    applySnapshot(snap);
    renderRace();
  } catch (e) {
    if (app.route.kind !== "race" || app.raceId !== id) return; // left meanwhile
    if (e.code === "race-started") {
      location.hash = `watch=${id}${inviteSuffix(id)}`;
      return;
    }
    app.error =
      {
        "no-such-race": "There is no such race (it may have expired).",
        "race-full": "This race is full.",
        "private-race": "This race is private: open it with the full link its players share (it carries the invite).",
        "too-many-races": "You already sit in too many races.",
      }[e.code] || errText(e);
    renderRace();
  }
}

async function setReady(ready) {
  try {
    const snap = await conn.request({ t: "ready", race: app.raceId, ready });
    applySnapshot(snap);
    renderRace();
  } catch (e) {
    toast(errText(e), "error");
  }
}

async function hostStart() {
  try {
    const snap = await conn.request({ t: "start", race: app.raceId });
    applySnapshot(snap);
    renderRace();
  } catch (e) {
    toast(errText(e), "error");
  }
}

async function leaveRace() {
  try {
    await conn.request({ t: "leave", race: app.raceId });
  } catch (e) {
    /* leaving anyway */
  }
  location.hash = "/";
}

async function finishGame() {
  if (!confirm("Stop playing and keep the cards you have home?")) return;
  try {
    const ok = await conn.request({ t: "finish", race: app.raceId });
    if (typeof ok.ver === "number") app.lastVer = Math.max(app.lastVer, ok.ver);
    if (app.you) app.you.status = "finished";
    const me = mySeat(app.race);
    if (me) me.status = "finished";
    renderRace();
  } catch (e) {
    toast(errText(e), "error");
  }
}

/** Called by the board: send one move, apply the ack. */
async function sendMove(move) {
  let you = app.you;
  if (!you || !app.race) return;
  if (app.board && app.board.marks.size) app.board.marks = new Map(); // a hint holds until the next move
  try {
    const ack = await conn.request({ t: "move", race: app.raceId, n: you.n, move, view: true }, 6000);
    if (ack.race !== app.raceId) return;
    if (typeof ack.ver === "number") checkVer(ack);
    // A resync while the move was in flight replaces app.you: update the board shown now,
    // unless that one is already past this move.
    if (app.you !== you) {
      if (!app.you || app.you.n > ack.n) return;
      you = app.you;
    }
    you.n = ack.n;
    you.home = ack.home;
    you.status = ack.status;
    if (ack.view) you.view = ack.view;
    if (ack.legal) you.legal = ack.legal;
    const me = mySeat(app.race);
    if (me) Object.assign(me, { n: ack.n, home: ack.home, status: ack.status });
    if (!ack.view) return resync(app.lastVer);
    renderRace();
    if (ack.won) toast("All cards home — you won!", "good", 5000);
  } catch (e) {
    if (e.code === "illegal-move") toast(errText(e), "error");
    else if (e.code === "out-of-sync") resync(app.lastVer);
    else if (e.code === "timeout") resync(app.lastVer); // the truth about n and the board
    else if (e.code === "disconnected") toast("Connection lost — your board is resynced after reconnecting", "warn");
    else toast(errText(e), "error");
  }
}

function setEnd(end) {
  app.end = end;
  app.verify = null;
  app.lastMoves = null;
  if (end.seed && (end.ranking || []).some((r) => !r.won && r.status === "timeout")) fetchLastMoves(end.race);
  const race = app.race;
  if (race && race.seed !== end.seed) race.seed = end.seed;
  const commitment = race && race.commitment;
  if (end.seed && commitment) {
    sha256Hex(end.seed).then(({ hex, how }) => {
      app.verify = { ok: hex === commitment, hex, how };
      if (app.route.kind === "race" || app.route.kind === "watch") renderResult();
    });
  }
}

function playerRows(race) {
  const total = race.total || 1;
  const ranked = new Map(((app.end && app.end.ranking) || race.ranking || []).map((r) => [r.player, r]));
  return (race.players || []).map((p) => {
    const pct = Math.round((100 * (p.home || 0)) / total);
    const mine = p.player === myId();
    const rk = ranked.get(p.player);
    return h(
      "li",
      { class: `prog ${mine ? "mine" : ""} st-${p.status}`, dataset: { player: p.player } },
      h(
        "div",
        { class: "prog-head" },
        rk ? h("span", { class: "rank" }, `#${rk.rank}`) : null,
        h("span", { class: "pname", title: p.name }, p.name, mine ? h("span", { class: "you" }, " (you)") : null),
        isBot(p.player) ? botBadge() : null,
        p.berserk ? h("span", { class: "pill p-berserk", title: "took half the clock for one more point if they win" }, "berserk") : null,
        h("span", { class: `pill p-${p.status}` }, STATUS_LABEL[p.status] || p.status),
      ),
      h("div", { class: "bar", title: `${p.home}/${total} cards home` }, h("i", { style: { width: `${pct}%` } })),
      h("div", { class: "prog-foot muted small" }, h("span", { class: "home" }, `${p.home || 0}/${total} home`), h("span", { class: "moves" }, countText(p.n || 0, "move"))),
    );
  });
}

function botBadge() {
  return h("span", { class: "bot-badge", title: "a computer player" }, "bot");
}

function raceSkeleton() {
  const main = $("#main");
  if ($("#race-page", main) && $("#race-page", main).dataset.race === app.raceId) return;
  main.replaceChildren(
    h(
      "div",
      { class: "race-page", id: "race-page", dataset: { race: app.raceId } },
      h(
        "aside",
        { class: "side" },
        h("div", { class: "side-head" }, h("h2", { id: "race-title" }, "Race"), h("div", { id: "race-sub", class: "muted small" })),
        h("div", { class: "clock-box" }, h("div", { id: "clock", class: "clock" }, "–:––"), h("div", { id: "clock-label", class: "muted small" }, "")),
        h("ul", { id: "players", class: "players" }),
        h("div", { id: "side-actions", class: "side-actions" }),
      ),
      h(
        "section",
        { class: "stage" },
        h("div", { id: "notice" }),
        h("div", { id: "result" }),
        h("div", { id: "lobby-panel" }),
        h("div", { id: "mini-status", class: "mini-status", hidden: true }, h("span", { id: "clock-mini", class: "clock-mini" }), h("span", { id: "mini-rivals", class: "mini-rivals" }), h("span", { id: "mini-home" })),
        h("div", { id: "board-wrap", class: "board-wrap" }, h("div", { id: "board" }), h("div", { id: "board-cover", class: "board-cover", hidden: true })),
        h("div", { id: "board-extras", class: "board-extras" }),
        h("div", { id: "countdown", class: "countdown", hidden: true }),
      ),
    ),
  );
}

function renderRace() {
  if (app.route.kind !== "race") return;
  raceSkeleton();
  const race = app.race;
  const notice = $("#notice");
  if (app.error) {
    // Someone without a seat sees why, and what they can do: never the players' lobby panel.
    $("#lobby-panel").replaceChildren();
    $("#result").replaceChildren();
    $("#board-wrap").hidden = true;
    $("#mini-status").hidden = true;
    renderBoardExtras(null);
    if (race) renderSideActions();
    notice.replaceChildren(raceErrorPanel());
    return;
  }
  if (!race) {
    notice.replaceChildren(h("p", { class: "muted loading" }, "Loading race…"));
    return;
  }
  notice.replaceChildren();
  const arena = arenaOf(race.race); // an arena race: its arena's name (once known) before the game's
  const arenaInfo = arena ? arenaPage.arenaInfo(arena) : null;
  $("#race-title").textContent = (dailyOf(race.race) ? "Daily · " : "") + (arena ? `${(arenaInfo && arenaInfo.arena.name) || "Arena race"} · ` : "") + gameName(race.game);
  $("#race-sub").replaceChildren(
    h("span", { class: `pill p-${race.status}`, id: "race-status" }, race.status),
    ` · ${race.players.length}/${race.seats} seats · ${Math.round(race.time_limit_s / 60)} min`,
    race.private ? " · private" : "",
    race.rated ? h("span", { class: "pill rated", id: "race-rated" }, "rated") : "", // the DOM writes a null as "null"
  );
  $("#players").replaceChildren(...playerRows(race));
  renderSideActions();
  renderLobbyPanel();
  renderBoard();
  renderResult();
  tick();
}

/** Why the race page cannot seat us; watching instead when the race is known and may be watched. */
function raceErrorPanel() {
  const race = app.race;
  const watchable = race && race.race === app.raceId && race.status !== "finished" && !dailyOf(race.race);
  const delay = Math.round(spectatorDelayMs() / 1000);
  return h(
    "div",
    { class: "panel error-panel" },
    h("h2", {}, app.error),
    watchable
      ? h("p", {}, race.status === "lobby" ? "You can watch it instead: it starts when its players are ready. " : "You can watch it instead. ", `Spectators see every board ${delay} s late.`)
      : null,
    h(
      "p",
      { class: "error-actions" },
      watchable ? h("a", { class: "btn primary", id: "watch-instead", href: `#watch=${race.race}${inviteSuffix(race.race)}` }, "Watch this race") : null,
      h("a", { class: "btn", href: "#/" }, "Back to the lobby"),
    ),
  );
}

/** How late spectators see the boards, in ms (the server's SPECTATOR_DELAY, from the welcome). */
function spectatorDelayMs() {
  return (app.me && app.me.limits && app.me.limits.SPECTATOR_DELAY) || 10000;
}

function renderSideActions() {
  const race = app.race;
  const box = $("#side-actions");
  const me = mySeat(race);
  const kids = [];
  if (race.status === "running" && app.mode === "player" && me && me.status === "playing") {
    if (hintsGiven(race)) kids.push(h("button", { class: "btn", id: "hint-btn", onclick: askHint, title: "The server's search suggests a move, from what you see only" }, "Hint"));
    kids.push(h("button", { class: "btn ghost", id: "finish-btn", onclick: finishGame, title: "Stop and keep your cards home" }, "Finish my game"));
  }
  if (arenaOf(race.race)) kids.push(...arenaActions(race, arenaOf(race.race), me));
  const daily = dailyOf(race.race);
  if (daily) kids.push(h("a", { class: "btn ghost", href: `#daily=${daily.game}` }, "Leaderboard"));
  else if (me || race.status !== "lobby") kids.push(h("button", { class: "btn ghost", onclick: () => copyLink(raceLink(race.race)) }, "Copy race link")); // not an invitation from outside
  kids.push(h("a", { class: "btn ghost", href: "#/" }, "Lobby"));
  kids.push(h("div", { class: "muted small commit", title: "sha256(seed), published before the start" }, "commitment ", h("code", {}, (race.commitment || "").slice(0, 16) + "…")));
  box.replaceChildren(...kids);
}

/**
 * On an arena race's page (docs/protocol.md §5a): Berserk until the start, if the arena allows
 * it (the server refuses it once the race runs), and the way to the arena's standings.
 */
function arenaActions(race, arena, me) {
  const info = arenaPage.arenaInfo(arena);
  const kids = [];
  if (me && (race.status === "lobby" || race.status === "countdown") && info && info.arena.berserk) {
    kids.push(
      h(
        "div",
        { class: "arena-berserk", id: "race-berserk-box" },
        me.berserk
          ? h("div", { class: "small", id: "race-berserked" }, "Berserk: your clock is halved, and a win earns 1 more arena point.")
          : [
              h("button", { class: "btn primary", id: "race-berserk", onclick: berserkRace, title: "Half your clock for this race, 1 more arena point if you win it" }, "Berserk"),
              h("div", { class: "muted small" }, "Half your clock, 1 more point if you win. Only until the start."),
            ],
      ),
    );
  }
  kids.push(h("a", { class: "btn ghost", id: "race-arena", href: `#arena=${arena}` }, "Arena standings"));
  return kids;
}

async function berserkRace() {
  const race = app.race;
  const arena = race && arenaOf(race.race);
  if (!arena) return;
  const btn = $("#race-berserk");
  if (btn) btn.disabled = true;
  const snap = await arenaPage.berserk(race.race, arena);
  // the same snapshot comes as an event too; the reply is used if it is the newer
  if (snap && app.race && snap.race === app.race.race && snap.ver > (app.race.ver || 0)) applySnapshot(snap);
  if (app.route.kind === "race" && app.race && app.race.race === race.race) renderRace();
}

/** Whether the server gives hints in this race (docs/protocol.md §3 `hint`): a casual race of one seat. */
function hintsGiven(race) {
  return race.seats === 1 && race.hints !== false && !race.rated && !dailyOf(race.race);
}

/** Ask the server for a hint and mark its move's piles on the board until the next move. */
async function askHint() {
  const raceId = app.raceId;
  const btn = $("#hint-btn");
  if (!app.you || !raceId) return;
  if (btn) btn.disabled = true;
  try {
    const rep = await conn.requestWhileBusy({ t: "hint", race: raceId }, "solver-busy", 15000);
    if (raceId !== app.raceId || rep.n !== app.you.n) return; // moved on meanwhile: the hint is stale
    app.hint = rep.move;
    if (!rep.move) {
      toast("Hint: nothing helps any more. Finish your game to keep your cards home.", "info", 6000);
      return;
    }
    if (app.board) {
      app.board.marks = moveMarks(rep.move, "hint");
      renderBoard();
    }
    const piles = parseView(app.you.view).piles;
    toast(`Hint: ${moveText(rep.move, (pile) => piles[pile])}`, "good", 6000);
  } catch (e) {
    toast(`No hint: ${errText(e)}`, "error");
  } finally {
    const b = $("#hint-btn");
    if (b) b.disabled = false;
  }
}

function copyLink(link) {
  const done = () => toast("Link copied", "good", 1500);
  if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(link).then(done, () => prompt("Copy this link", link));
  else prompt("Copy this link", link);
}

function renderLobbyPanel() {
  const race = app.race;
  const box = $("#lobby-panel");
  if (race.status !== "lobby") {
    box.replaceChildren();
    return;
  }
  const me = mySeat(race);
  if (!me) {
    box.replaceChildren(); // the seat is being taken, or refused (the notice says why)
    return;
  }
  const link = raceLink(race.race);
  const isHost = race.host && race.host === myId();
  const allReady = race.players.every((p) => p.ready);
  const free = race.seats - race.players.length;
  box.replaceChildren(
    h(
      "div",
      { class: "panel lobby-panel" },
      h("h2", {}, "Waiting for players"),
      h("p", {}, free > 0 ? `${free} seat${free > 1 ? "s" : ""} free. Share this link with a friend:` : "Every seat is taken. The race starts when everybody is ready."),
      h("div", { class: "share" }, h("input", { id: "share-link", readonly: true, value: link, onfocus: (e) => e.target.select() }), h("button", { class: "btn", onclick: () => copyLink(link) }, "Copy")),
      me && free > 0
        ? h(
            "form",
            {
              class: "add-bot",
              onsubmit: (e) => {
                e.preventDefault();
                addBot(conn, race.race, e.target.level.value).catch((err) => toast(`No bot: ${errText(err)}`, "error"));
              },
            },
            "Or race a bot: ",
            h("select", { name: "level" }, BOT_LEVELS.map(([v, label]) => h("option", { value: v, selected: v === "greedy" }, label))),
            " ",
            h("button", { class: "btn small", type: "submit", id: "add-bot" }, "Add a bot"),
          )
        : null,
      h(
        "p",
        { class: "muted small" },
        "Or bring your own bot from a terminal: ",
        h("code", { id: "bot-cmd" }, `solrace bot --url ${Connection.defaultUrl()} --race ${race.race} --game ${race.game} --strategy greedy --delay-ms 500`),
      ),
      h(
        "div",
        { class: "lobby-actions" },
        me
          ? h("button", { class: `btn ${me.ready ? "" : "primary"}`, id: "ready-btn", onclick: () => setReady(!me.ready) }, me.ready ? "Not ready" : "I'm ready")
          : null,
        isHost ? h("button", { class: "btn", id: "start-btn", disabled: !allReady || null, onclick: hostStart, title: "Start with the players present (all ready)" }, "Start now") : null,
        me ? h("button", { class: "btn ghost", onclick: leaveRace }, "Leave") : null,
      ),
    ),
  );
}

function renderBoard() {
  const race = app.race;
  const wrap = $("#board-wrap");
  const you = app.you;
  const show = app.mode === "player" && you && you.view && race.status !== "lobby";
  wrap.hidden = !show;
  $("#mini-status").hidden = !show;
  renderBoardExtras(show ? race.game : null);
  if (!show) return;
  renderMini();
  if (!app.board) {
    app.board = new Board($("#board"), { interactive: true, onMove: sendMove, maxCard: 104 });
  }
  const me = mySeat(race);
  const playing = race.status === "running" && (!me || me.status === "playing") && you.status !== "won" && you.status !== "finished" && you.status !== "timeout";
  app.board.set(you.view, playing ? you.legal || [] : []);
  const cover = $("#board-cover");
  const st = (me && me.status) || you.status;
  if (!playing && race.status !== "finished" && (st === "won" || st === "finished" || st === "timeout")) {
    const home = you.home !== undefined ? you.home : me ? me.home : 0;
    const key = `${st}:${home}`;
    cover.hidden = false;
    if (cover.dataset.key !== key) {
      cover.dataset.key = key; // rebuilt only when it changes: a click on its button is not lost
      cover.replaceChildren(gameOverCover(st, home, race.total));
    }
  } else {
    cover.hidden = true;
    delete cover.dataset.key;
  }
}

/** Over the board of a player whose game is over while the race runs: what happens next. */
function gameOverCover(st, home, total) {
  const title = st === "won" ? "★ You won! Every card is home." : st === "timeout" ? `Your clock ran out: ${home}/${total} cards home.` : `You stopped with ${home}/${total} cards home.`;
  return h(
    "div",
    { class: "cover-msg", id: "cover-msg" },
    h("div", { class: "cover-title" }, title),
    h("p", {}, "Your result is kept. The race ends when the others finish, or when its clock runs out in ", h("b", { id: "cover-left" }, raceLeftText()), "."),
    h("p", { class: "small muted" }, "Follow the others here, or go back to the lobby: you are told when the race ends, and its result stays here."),
    h("div", { class: "cover-actions" }, h("a", { class: "btn", id: "cover-lobby", href: "#/" }, "Back to the lobby")),
  );
}

function raceLeftText() {
  const race = app.race;
  return race && race.deadline ? fmtClock(Math.max(0, race.deadline - conn.now())) : "–:––";
}

/** Under the board: the option to mark movable cards, and the legend of the piles. */
function renderBoardExtras(game) {
  const box = $("#board-extras");
  if (!box) return;
  if (!game) return box.replaceChildren();
  if (box.dataset.game === game) return;
  box.dataset.game = game;
  box.replaceChildren(
    h(
      "label",
      { class: "check small" },
      h("input", {
        type: "checkbox",
        id: "mark-movable",
        checked: markMovable() || null,
        onchange: (e) => {
          localStorage.setItem("solrace.markMovable", e.target.checked ? "1" : "0");
          document.body.classList.toggle("mark-movable", e.target.checked);
        },
      }),
      " Mark the cards that can move",
    ),
    h("details", { class: "legend", id: "legend" }, h("summary", {}, "Piles"), legendEl(h, game), h("a", { class: "small", href: `#howto=${game}` }, "How to play")),
  );
}

function markMovable() {
  return localStorage.getItem("solrace.markMovable") === "1";
}
document.body.classList.toggle("mark-movable", markMovable());

/** On phones the side panel is below the board: a line above it keeps the clock, you and your rivals in view. */
function renderMini() {
  const race = app.race;
  const box = $("#mini-status");
  if (!race || !box || box.hidden) return;
  const me = mySeat(race);
  const home = app.you && app.you.home !== undefined ? app.you.home : me ? me.home : 0;
  $("#mini-home").textContent = `you ${home}/${race.total}`;
  $("#mini-rivals").replaceChildren(
    ...race.players
      .filter((p) => p.player !== myId())
      .map((p) => h("span", { class: `mini-rival st-${p.status}`, title: `${p.name}: ${p.home}/${race.total} home, ${STATUS_LABEL[p.status] || p.status}` }, `${p.name} ${p.home}${p.status === "won" ? " ★" : ""}`)),
  );
}

/** Whether a daily attempt's day ({game, date} from dailyOf) has closed (next midnight UTC, docs/protocol.md §5). */
function dailyClosed(daily) {
  const opens = daily && daily.date ? Date.parse(`${daily.date}T00:00:00Z`) : NaN;
  return Number.isFinite(opens) && conn.now() >= opens + 86400000;
}

/** A daily attempt's sealed result: where its seed is (or will be) revealed, with links. */
function dailySealedNote(daily) {
  const page = daily ? `#daily=${daily.game}${daily.date ? `&date=${daily.date}` : ""}` : "#daily";
  if (dailyClosed(daily))
    return h(
      "div",
      { class: "muted", id: "sealed" },
      `This deal was the ${daily.date} daily challenge. The day is closed: its seed is revealed on `,
      h("a", { id: "sealed-day", href: page }, "the day's page"),
      ", where your browser checks it against this commitment, and ",
      h("a", { id: "sealed-replay", href: `#replay=${app.race && app.race.race}` }, "your replay"),
      " is open.",
    );
  return h(
    "div",
    { class: "muted", id: "sealed" },
    "This deal is a daily challenge: its seed is revealed after the day closes (UTC), on ",
    h("a", { id: "sealed-day", href: page }, "the daily page"),
    ", where your browser checks it against this commitment.",
  );
}

/** The Rematch button's tooltip: a rematch is always casual, with an ordinary deal (docs/protocol.md §3 `rematch`). */
function rematchTitle(race) {
  if (race.rated) return "The same players, game and clock, a new deal: a casual race (a rematch is never rated)";
  return `The same players, a new deal, the same game, seats and clock${race.certified ? " (an ordinary deal: not certified winnable)" : ""}`;
}

let arenaWait = null; // {race, over}: the arena points of this race are being waited for

/** Under an arena race's result: the arena points it earned (once the arena counted it), and what comes next. */
function arenaResultView(race, myRank) {
  const arena = arenaOf(race.race);
  if (!arena) return null;
  const info = arenaPage.arenaInfo(arena);
  const got = myRank ? arenaPage.pointsOf(arena, race.race) : null;
  if (myRank && !got && (!arenaWait || arenaWait.race !== race.race)) {
    const wait = (arenaWait = { race: race.race, over: false });
    const still = () => app.route.kind === "race" && app.raceId === race.race;
    arenaPage.awaitPoints(arena, race.race, still).then(() => {
      wait.over = true;
      if (still()) renderResult();
    });
  }
  const waiting = arenaWait && arenaWait.race === race.race && !arenaWait.over;
  const over = info && (info.arena.status === "over" || arenaPage.now() >= info.arena.ends);
  const name = (info && info.arena.name) || "the arena";
  return h(
    "div",
    { class: "arena-result", id: "arena-result" },
    myRank
      ? got
        ? h("p", { id: "arena-points" }, h("b", {}, `+${got.points} arena point${got.points === 1 ? "" : "s"}`), ` in ${name} (#${got.rank} in this race).`)
        : h("p", { class: "muted", id: "arena-points-wait" }, waiting ? `Counting your points in ${name}…` : `Your points are in the standings of ${name}.`)
      : null,
    h(
      "p",
      { class: "muted small", id: "arena-next" },
      over
        ? "The arena is over: no more pairings."
        : info && !info.joined
          ? "You have withdrawn: join the arena again on its page to race on."
          : "While you stay joined, the arena pairs you again by itself: your next race opens here within seconds. Withdraw on the arena's page to stop.",
    ),
  );
}

function renderResult() {
  const box = $("#result");
  if (!box) return;
  const end = app.end;
  if (!end) {
    box.replaceChildren();
    return;
  }
  const race = app.race || {};
  const v = app.verify;
  const myRank = (end.ranking || []).find((r) => r.player === myId());
  const daily = dailyOf(race.race);
  const sealed = !end.seed;
  const offer = app.rematchOffer && app.rematchOffer.race === race.race ? app.rematchOffer : null;
  box.replaceChildren(
    h(
      "div",
      { class: "panel result-panel", id: "result-panel" },
      h(
        "h2",
        {},
        daily
          ? `Daily attempt over: ${myRank && myRank.won ? "all cards home!" : `${myRank ? myRank.home : "?"}/${race.total} home`}`
          : myRank
            ? myRank.rank === 1 && (end.ranking || []).length > 1
              ? "★ You win the race!"
              : `You finished #${myRank.rank}`
            : "Race over",
      ),
      accountPage.ratingLine(race.race, myId()),
      arenaResultView(race, myRank),
      h(
        "table",
        { class: "ranking" },
        h("thead", {}, h("tr", {}, ["#", "Player", "Result", "Home", "Moves"].map((x) => h("th", {}, x)), h("th", { title: TIME_TITLE }, "Time"))),
        h(
          "tbody",
          {},
          (end.ranking || []).map((r) => {
            const t = timeCell(r, app.lastMoves && app.lastMoves.get(r.player));
            return h(
              "tr",
              { class: r.player === myId() ? "mine" : "", dataset: { player: r.player } },
              h("td", {}, r.rank),
              h("td", { class: "name" }, r.name, isBot(r.player) ? botBadge() : null),
              h("td", {}, h("span", { class: `pill p-${r.status}` }, r.won ? "won" : STATUS_LABEL[r.status] || r.status)),
              h("td", {}, `${r.home}/${race.total || "?"}`),
              h("td", {}, r.moves, end.par ? h("span", { class: "muted small par" }, ` / par ${end.par}`) : null),
              h("td", { class: "time", title: t.title }, h("span", { class: "tlabel" }, t.label), " ", t.text),
            );
          }),
        ),
      ),
      sealed
        ? h(
            "div",
            { class: "fair" },
            h("div", {}, "Commitment ", h("code", {}, race.commitment || "—")),
            dailySealedNote(daily),
          )
        : h(
        "div",
        { class: "fair" },
        h("div", {}, "Seed ", h("code", { id: "seed" }, end.seed || "—")),
        h("div", {}, "Commitment ", h("code", {}, race.commitment || "—")),
        h(
          "div",
          { id: "verify", class: `verify ${v ? (v.ok ? "ok" : "bad") : ""}` },
          v ? (v.ok ? `✔ sha256(seed) matches the commitment (checked in your browser, ${v.how})` : `✘ sha256(seed) = ${v.hex} does NOT match the commitment`) : "checking sha256(seed)…",
        ),
      ),
      h(
        "div",
        { class: "result-actions" },
        daily ? h("a", { class: "btn primary", id: "to-leaderboard", href: `#daily=${daily.game}` }, "See the leaderboard") : null,
        arenaOf(race.race) ? h("a", { class: "btn primary", id: "to-arena", href: `#arena=${arenaOf(race.race)}` }, "Back to the arena") : null,
        offer && !daily ? h("button", { class: "btn primary", id: "accept-rematch", onclick: () => takeRematch(offer) }, `Accept ${offer.name}'s rematch`) : null,
        myRank && !daily && !offer && !arenaOf(race.race) ? h("button", { class: "btn primary", id: "rematch-btn", onclick: () => askRematch(race.race), title: rematchTitle(race) }, "Rematch") : null,
        race.game && !daily && !arenaOf(race.race) ? h("button", { class: "btn", onclick: () => quick(race.game).then(() => (location.hash = "/")) }, "Quick match again") : null,
        race.game && !daily && !arenaOf(race.race) ? h("button", { class: "btn", onclick: () => createRace(race.game, race.seats, race.time_limit_s, race.private, !!race.rated && loggedIn()) }, "New race, same settings") : null,
        sealed && !dailyClosed(daily) ? null : h("a", { class: "btn", id: "to-replay", href: `#replay=${race.race}` }, "Watch the replay"),
        sealed || (app.analysis && app.analysis.race === race.race && !app.analysis.error)
          ? null
          : h("button", { class: "btn", id: "analyze", onclick: () => fetchAnalysis(race.race) }, app.analysis && app.analysis.error ? "Try the analysis again" : "Where was the win lost?"),
        h("a", { class: "btn ghost", href: "#/" }, "Lobby"),
      ),
      analysisView(race.race),
    ),
  );
}

/** The solver's post-race analysis of a finished race: per player, where the win was lost. */
async function fetchAnalysis(raceId) {
  app.analysis = { race: raceId, pending: true };
  renderResult();
  try {
    const rep = await conn.requestWhileBusy(withInvite({ t: "analysis", race: raceId }), "solver-busy", 120000);
    if (app.analysis.race !== raceId) return;
    app.analysis = { race: raceId, players: rep.players };
  } catch (e) {
    if (app.analysis.race !== raceId) return;
    app.analysis = { race: raceId, error: `No analysis: ${errText(e)}` };
  }
  renderResult();
}

function analysisView(raceId) {
  const a = app.analysis;
  if (!a || a.race !== raceId) return null;
  if (a.pending) return h("div", { id: "analysis", class: "muted" }, "Analysing the race…");
  if (a.error) return h("div", { id: "analysis", class: "bad" }, a.error);
  return h(
    "ul",
    { id: "analysis", class: "analysis" },
    a.players.map((p) => analysisItem(h, p)),
  );
}

const TIME_TITLE = "Winners: the time to win. Others: when they stopped, or their last move when the clock ran out.";

/** After the end of a public race: each player's last move time, from the race's replay. */
async function fetchLastMoves(raceId) {
  try {
    const [rep, st] = await Promise.all([conn.request(withInvite({ t: "replay", race: raceId })), conn.request(withInvite({ t: "resync", race: raceId }))]);
    const start = st.race && st.race.starts_at;
    if (!start || raceId !== app.raceId) return;
    app.lastMoves = new Map(rep.players.map((p) => [p.player, p.moves.length ? p.moves[p.moves.length - 1][1] - start : null]));
    renderResult();
  } catch (e) {
    /* the column falls back to "time up" */
  }
}

// ---------------------------------------------------------------- clock

function tick() {
  const race = app.race;
  const clock = $("#clock");
  if (!race || !clock) return;
  const now = conn.now();
  if (race.status === "countdown" && race.starts_at && now >= race.starts_at && app.route.kind === "watch") {
    race.status = "running"; // a spectator gets no `start`: the countdown ends on the clock
    return renderWatch();
  }
  const label = $("#clock-label");
  const cd = $("#countdown");
  let text = "–:––";
  let lab = "";
  let urgent = false;
  if (race.status === "lobby") {
    text = fmtClock(race.time_limit_s * 1000);
    lab = "race clock";
  } else if (race.starts_at && now < race.starts_at) {
    text = fmtClock(race.time_limit_s * 1000);
    lab = "starting…";
  } else if (race.status === "running" || race.status === "countdown") {
    // A berserk player's own clock is half the race's (protocol/clock.py): theirs is shown.
    const seat = mySeat(race);
    const berserk = !!(seat && seat.berserk);
    const deadline = berserk ? race.starts_at + Math.ceil(race.time_limit_s / 2) * 1000 : race.deadline;
    const left = deadline - now;
    text = fmtClock(Math.max(0, left));
    lab = `left${berserk ? " (berserk: half the clock)" : ""} · ${fmtClock(now - race.starts_at)} elapsed`;
    urgent = left < 30000;
  } else if (race.status === "finished") {
    text = "done";
    lab = "race finished";
  }
  const left = $("#cover-left");
  if (left) left.textContent = raceLeftText();
  const berserkBox = $("#race-berserk-box"); // too late once the countdown is over (`start` may lag)
  if (berserkBox) berserkBox.hidden = !!(race.starts_at && now >= race.starts_at);
  const wait = $("#boards-wait-text");
  if (wait) wait.textContent = boardsWaitText();
  clock.textContent = text;
  clock.classList.toggle("urgent", urgent);
  const mini = $("#clock-mini");
  if (mini) {
    mini.textContent = text;
    mini.classList.toggle("urgent", urgent);
  }
  if (label) label.textContent = lab;
  if (cd) {
    const counting = race.starts_at && now < race.starts_at && race.status !== "finished";
    cd.hidden = !counting;
    if (counting) {
      const s = Math.ceil((race.starts_at - now) / 1000);
      cd.replaceChildren(h("div", { class: "cd-num" }, s), h("div", { class: "cd-label" }, `${gameName(race.game)} — get ready`));
    }
  }
}
setInterval(tick, 200);

// ---------------------------------------------------------------- watching

function renderWatchList() {
  $("#main").replaceChildren(
    h("div", { class: "lobby" }, h("section", { class: "panel" }, h("h2", {}, "Live races"), h("p", { class: "muted", id: "watch-delay" }, `Spectators see each board ${Math.round(spectatorDelayMs() / 1000)} s late, so nobody can help a racer.`), h("div", { id: "race-list" }, raceListEl()))),
  );
}

async function openWatch(id) {
  try {
    const snap = await conn.request(withInvite({ t: "spectate", race: id }));
    app.mode = "spectator";
    app.watchSince = conn.now(); // the first boards come one spectator delay after this (or the start)
    applySnapshot(snap);
    renderWatch();
  } catch (e) {
    if (e.code === "is-player") {
      location.hash = `race=${id}`;
      return;
    }
    if (e.code === "disconnected") return;
    app.error =
      {
        "private-race": "This race is private: it can be watched only with its invite link.",
        "no-such-race": "There is no such race (it may have expired).",
        "daily-open": "Daily challenge boards are secret until the day closes.",
      }[e.code] || errText(e);
    renderWatch();
  }
}

function renderWatch() {
  if (app.route.kind !== "watch") return;
  const main = $("#main");
  if (!$("#watch-page", main)) {
    main.replaceChildren(
      h(
        "div",
        { class: "race-page watch", id: "watch-page" },
        h(
          "aside",
          { class: "side" },
          h("div", { class: "side-head" }, h("h2", { id: "race-title" }, "Watching"), h("div", { id: "race-sub", class: "muted small" })),
          h("div", { class: "clock-box" }, h("div", { id: "clock", class: "clock" }, "–:––"), h("div", { id: "clock-label", class: "muted small" })),
          h("ul", { id: "players", class: "players" }),
          h("div", { class: "side-actions" }, h("a", { class: "btn ghost", href: "#watch" }, "All races"), h("a", { class: "btn ghost", href: "#/" }, "Lobby")),
        ),
        h("section", { class: "stage" }, h("div", { id: "notice" }), h("div", { id: "result" }), h("div", { id: "boards", class: "boards" }), h("div", { id: "countdown", class: "countdown", hidden: true })),
      ),
    );
  }
  const notice = $("#notice");
  if (app.error) {
    notice.replaceChildren(h("div", { class: "panel error-panel" }, h("h2", {}, app.error), h("a", { class: "btn", href: "#watch" }, "All races")));
    return;
  }
  const race = app.race;
  if (!race) {
    notice.replaceChildren(h("p", { class: "muted loading" }, "Loading race…"));
    return;
  }
  const delay = spectatorDelayMs();
  notice.replaceChildren(
    race.status === "running" || race.status === "countdown"
      ? h("p", { class: "muted small delay-note" }, `Spectating — boards are shown ${Math.round(delay / 1000)} s late`, app.boardsAt ? ` (as of ${new Date(app.boardsAt).toLocaleTimeString()})` : "")
      : race.status === "lobby"
        ? h("p", { class: "muted" }, "The race has not started yet.")
        : "",
  );
  $("#race-title").textContent = `Watching ${gameName(race.game)}`;
  $("#race-sub").replaceChildren(h("span", { class: `pill p-${race.status}`, id: "race-status" }, race.status), ` · ${countText(race.players.length, "player")}`);
  $("#players").replaceChildren(...playerRows(race));
  renderBoards();
  renderResult();
  tick();
}

function renderBoards() {
  const box = $("#boards");
  if (!box || !app.race) return;
  const names = new Map(app.race.players.map((p) => [p.player, p.name]));
  const waiting = !app.boards.size && (app.race.status === "running" || app.race.status === "countdown");
  if (waiting && !$("#boards-wait", box)) {
    box.replaceChildren(
      h(
        "div",
        { class: "panel boards-wait", id: "boards-wait" },
        h("h2", {}, h("span", { class: "spinner" }), h("span", { id: "boards-wait-text" }, boardsWaitText())),
        h("p", { class: "muted" }, `Spectators see every board ${Math.round(spectatorDelayMs() / 1000)} s late, so nobody can help a racer. Each player's progress is live meanwhile.`),
      ),
    );
  } else if (!waiting && $("#boards-wait", box)) {
    $("#boards-wait", box).remove();
  }
  box.classList.toggle("two", app.boards.size > 1);
  for (const [pid, entry] of app.boards) {
    if (!entry.el) {
      entry.el = h("div", { class: "spec-board", dataset: { player: pid } }, h("div", { class: "spec-name" }), h("div", { class: "spec-inner" }));
      box.appendChild(entry.el);
      entry.board = new Board(entry.el.querySelector(".spec-inner"), { interactive: false, minCard: 22, maxCard: 70 });
    }
    entry.el.querySelector(".spec-name").textContent = `${names.get(pid) || pid} · ${countText(entry.n, "move")}`;
    entry.el.querySelector(".spec-name").title = names.get(pid) || pid;
    if (entry.view !== entry.drawn) {
      entry.board.set(entry.view, []);
      entry.drawn = entry.view;
    }
  }
}

/** When the first delayed boards should come: one spectator delay after the start, or after we began watching. */
function boardsWaitText() {
  const race = app.race;
  const from = Math.max((race && race.starts_at) || 0, app.watchSince || 0);
  const left = Math.ceil((from + spectatorDelayMs() - conn.now()) / 1000);
  return left > 0 ? `The boards appear in ${left} s` : "The boards appear in a moment…";
}

// ---------------------------------------------------------------- daily challenge

const dailyPage = new DailyPage({
  conn,
  h,
  $,
  toast,
  errText,
  myId,
  go: (hash) => (location.hash = hash),
  setPending: (snap) => (app.pendingSnapshot = snap),
});
setInterval(() => app.route.kind === "daily" && dailyPage.tick(), 1000);

const arenaPage = new ArenaPage({ conn, h, $, toast, errText, myId, go: (hash) => (location.hash = hash), onArena: (id) => app.route.kind === "race" && app.race && arenaOf(app.race.race) === id && renderRace() });
setInterval(() => app.route.kind === "arena" && arenaPage.tick(), 1000);
const accountPage = new AccountPage({
  conn,
  h,
  $,
  toast,
  errText,
  go: (hash) => (location.hash = hash),
  onRating: (m) => m.race === app.raceId && app.route.kind === "race" && renderResult(),
});

const replayPage = new ReplayPage({ conn, h, $, copyLink, inviteOf: (id) => app.invites[id] || null });
const howtoPage = new HowtoPage({ h, $ });

async function probeDaily() {
  try {
    await conn.request({ t: "daily", game: GAME_IDS[0] });
    app.daily.supported = true;
  } catch (e) {
    app.daily.supported = e.code !== "unknown-type" && e.code !== "bad-message";
  }
  $("#nav-daily").hidden = !app.daily.supported;
  if (app.route.kind === "lobby") renderLobby();
}

// ---------------------------------------------------------------- events

conn.on("welcome", (w) => {
  app.me = w;
  $("#name").value = w.name;
  if (app.queued) {
    const q = app.queued;
    app.queued = null;
    quick(q.game, q.seats, q.rated);
  }
  if (app.route.kind === "lobby") renderLobby();
  if (app.route.kind === "watchlist") renderWatchList(); // the spectator delay is in the welcome
  app.everOnline = true;
  Promise.resolve(enterRoute()).finally(showConnBack); // "reconnected" once the race is resynced
  if (app.daily.supported === null) probeDaily();
});

conn.on("race", (snap) => {
  if (arenaPage.paired(snap) && app.raceId !== snap.race) {
    // an arena we joined paired us into this race
    app.pendingSnapshot = snap;
    location.hash = `race=${snap.race}`;
    return;
  }
  if (app.queued && snap.players && snap.players.some((p) => p.player === myId())) {
    // quick match found a race for us
    app.queued = null;
    renderQueueBanner();
    if (app.raceId !== snap.race) {
      app.pendingSnapshot = snap;
      location.hash = `race=${snap.race}`;
      return;
    }
  }
  if (snap.race !== app.raceId) return;
  if (snap.rid === undefined) checkVer(snap);
  applySnapshot(snap);
  if (mySeat(snap) && app.mode !== "spectator") app.mode = "player";
  if (snap.status === "running" && app.mode === "player" && !app.you) resync();
  render();
});

conn.on("start", (m) => {
  if (m.race !== app.raceId) return;
  checkVer(m);
  if (app.race) Object.assign(app.race, { status: "running", starts_at: m.starts_at, deadline: m.deadline });
  app.mode = "player";
  app.you = { n: m.n || 0, view: m.view, legal: [], home: 0, status: "playing" };
  const me = mySeat(app.race);
  if (me) me.status = "playing";
  renderRace();
  resync(); // for the legal moves
});

conn.on("progress", (m) => {
  if (m.race !== app.raceId || !app.race) return;
  checkVer(m);
  const p = app.race.players.find((x) => x.player === m.player);
  if (p && p.status === "playing" && m.player !== myId()) rivalToast(p.name, m);
  if (p) Object.assign(p, { n: m.n, home: m.home, status: m.status, at: m.at });
  if (m.total) app.race.total = m.total;
  const li = document.querySelector(`#players li[data-player="${m.player}"]`);
  if (li && p) li.replaceWith(playerRows({ ...app.race, players: [p] })[0]);
  else render();
  if (app.route.kind === "race") renderMini();
});

/** The end of a race we sit in but are not looking at (we left it once our game was over). */
function otherRaceEnded(m) {
  if (app.me && app.me.races) app.me.races = app.me.races.filter((id) => id !== m.race);
  const mine = (m.ranking || []).find((r) => r.player === myId());
  if (!mine) return;
  const game = app.raceGames[m.race];
  const text = `Your ${game ? `${gameName(game)} ` : ""}race is over: you finished #${mine.rank} of ${m.ranking.length}. `;
  const link = h("a", { class: "btn small primary", id: "see-result", href: `#race=${m.race}${inviteSuffix(m.race)}`, onclick: () => setBanner(null) }, "See the result");
  if (app.queued) return toast(text, "info", 8000); // the banner says we are looking for a race
  setBanner(h("div", { class: "queue race-over" }, text, link, h("button", { class: "btn small ghost", onclick: () => setBanner(null) }, "Close")));
  if (app.route.kind === "lobby") renderLobby();
}

/** A toast when a rival wins or stops (not for time-outs: everyone stops then, and the result says it). */
function rivalToast(name, m) {
  const race = app.race;
  const t = race && race.starts_at && m.at ? ` in ${fmtClock(m.at - race.starts_at)}` : "";
  if (m.status === "won") toast(`${name} got every card home${t}!`, "warn", 5000);
  else if (m.status === "finished") toast(`${name} finished with ${m.home}/${m.total || race.total} cards home`, "info", 4000);
}

conn.on("end", (m) => {
  if (m.race !== app.raceId) return otherRaceEnded(m);
  checkVer(m);
  if (app.race) {
    app.race.status = "finished";
    app.race.seed = m.seed;
    app.race.ranking = m.ranking;
    for (const r of m.ranking || []) {
      const p = app.race.players.find((x) => x.player === r.player);
      if (p) Object.assign(p, { home: r.home, status: r.status, n: r.moves });
    }
  }
  setEnd(m);
  render();
  if (app.route.kind === "watch" && app.route.arena) arenaPage.follow(app.route.arena, m.race);
});

conn.on("state", (st) => {
  if (st.rid !== undefined) return; // a reply: handled where it was asked
  applyState(st); // after out-of-sync
});

conn.on("boards", (m) => {
  if (m.race !== app.raceId || app.route.kind !== "watch") return;
  app.boardsAt = m.at;
  for (const b of m.boards || []) {
    const e = app.boards.get(b.player) || {};
    e.n = b.n;
    e.view = b.view;
    app.boards.set(b.player, e);
  }
  renderBoards();
  const note = $(".delay-note");
  if (note && m.at) {
    const delay = spectatorDelayMs();
    note.textContent = `Spectating — boards are shown ${Math.round(delay / 1000)} s late (as of ${new Date(m.at).toLocaleTimeString()})`;
  }
});

conn.on("queued", () => {});

conn.on("rematch", (m) => {
  app.rematchOffer = m;
  if (app.route.kind === "race" && app.raceId === m.race) {
    toast(`${m.name} offers a rematch`, "info", 4000);
    renderResult();
  } else renderRematchBanner();
});

conn.on("error", (e) => {
  if (e.rid === undefined && e.code !== "bad-token") toast(errText(e), "error");
});

conn.on("_closed", () => {
  if (app.board) app.board.busy = false;
});

// ---------------------------------------------------------------- start

// for the browser tests and the curious: window.solrace.createRace("fours-up", 1, 30)
Object.assign(window.solrace, { createRace, quick, sendMove, replayPage, howtoPage, accountPage, arenaPage, render });

initHeader();
window.addEventListener("hashchange", onRoute);
document.addEventListener("keydown", (e) => {
  if (e.target && (e.target.tagName === "INPUT" || e.target.tagName === "SELECT")) return;
  if (app.board && (e.key === " " || e.key === "d") && app.route.kind === "race" && conn.status === "online") {
    e.preventDefault();
    if (app.board.legal.draw && !app.board.busy) app.board.play("draw");
  }
  if (e.key === "Escape" && app.board) {
    app.board.sel = null;
    app.board.render();
  }
});
onRoute();
conn.connect();
