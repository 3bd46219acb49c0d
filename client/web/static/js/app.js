// solrace browser client: lobby, races, spectating, daily challenge.
// Plain ES modules, no framework, no build step. Speaks docs/protocol.md over /ws.
//
// This is the entry point: the router (one page per route, over the shared state of state.js),
// the page controllers, and the wiring of the connection's events to the pages. The pages:
//   lobby.js       the lobby (#/) and "Your races"; lobby_recent.js its "Your recent races";
//                  matchmaking.js its quick match, new races, rematches
//   race_page.js   a race we play (#race=ID); race_sync.js keeps it in step with the server,
//                  race_play.js its board and moves, result.js its result panel, players.js its players
//   watch.js       the live races (#watch) and a race watched (#watch=ID)
//   daily.js, arena.js, replay.js, howto.js, accounts.js: the pages with a controller class each
// and header.js the header and its connection notes, dom.js the DOM helpers, clock.js the race clock.
import { GAME_IDS } from "./games.js";
import { DailyPage } from "./daily.js";
import { ArenaPage, arenaOf } from "./arena.js";
import { ReplayPage } from "./replay.js";
import { HowtoPage } from "./howto.js";
import { errorText as errText, nameMarks } from "./words.js";
import { AccountPage } from "./accounts.js";
import { $, copyLink, h, keyForTarget, toast } from "./dom.js";
import { initHeader, markNav, showConnBack } from "./header.js";
import { keepRaceLabelsOf, noteMyRace, otherRaceEnded, refreshRaces, rememberMyRace, renderLobby, restoreRaceLabels } from "./lobby.js";
import { refreshRecent } from "./lobby_recent.js";
import { createRace, quick, renderQueueBanner, renderRematchBanner, routeRematchBanner } from "./matchmaking.js";
import { playerRows } from "./players.js";
import { keepArenaResult, renderRace, tickRace } from "./race_page.js";
import { markMovable, renderMini, rivalToast, sendMove } from "./race_play.js";
import { applySnapshot, applyState, checkVer, openRace, resync } from "./race_sync.js";
import { leaveResult, renderResult, setEnd } from "./result.js";
import { app, conn, myId, mySeat, pages, spectatorDelayMs } from "./state.js";
import { delayNote, openWatch, renderBoards, renderWatch, renderWatchList, tickWatch } from "./watch.js";

window.solrace = { app, conn };
restoreRaceLabels();

// ---------------------------------------------------------------- routing

function parseHash() {
  const hash = decodeURIComponent(location.hash.replace(/^#\/?/, ""));
  let m;
  // `&analysis` (the lobby's recent races link it): the result asks for the solver's analysis by itself
  if ((m = /^race=([\w-]+)(?:&invite=([\w-]+))?/.exec(hash))) return { kind: "race", id: m[1], invite: m[2] || null, analysis: /&analysis\b/.test(hash) };
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
    rememberMyRace(app.race.race, app.race.game, app.race.status);
  }
  leaveResult();
  if (app.board) {
    app.board.destroy();
    app.board = null;
  }
  for (const b of app.boards.values()) if (b.board) b.board.destroy();
  app.boards.clear();
  clearInterval(app.listTimer);
}

// The page's title per route, read first by a screen reader when the page changes.
const ROUTE_TITLES = { lobby: "Lobby", race: "Race", watchlist: "Live races", watch: "Watching a race", daily: "Daily challenge", arena: "Arenas", replay: "Replay", howto: "How to play", account: "Account", profile: "Profile", ratings: "Ratings" };
let routed = false;

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
  markNav();
  document.body.dataset.route = next.kind;
  document.title = `${ROUTE_TITLES[next.kind] || "race the same deal"} — solrace`;
  if (next.kind === "howto") howtoPage.open(next.id || GAME_IDS[0]);
  routeRematchBanner();
  render();
  // A new page: a screen reader starts reading at its content, and Tab goes on from there (not
  // from a button of the page that is gone). Not at the first load: the browser's own start.
  // Not from a field (the header's name being typed: its blur would save half a name).
  const at = document.activeElement;
  if (routed && (!at || at === document.body || $("#main").contains(at))) $("#main").focus({ preventScroll: true });
  routed = true;
  if (conn.status === "online") enterRoute();
}

/** Fetch what the current route needs (also after every reconnect). */
function enterRoute() {
  const r = app.route;
  if (r.kind === "lobby" || r.kind === "watchlist") {
    if (r.kind === "lobby") refreshRecent(); // once per visit (and after a welcome), not per re-render
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

// ---------------------------------------------------------------- the pages with a controller

// "Your races" learns a race's game and status from every snapshot and start we hear of.
conn.on("race", noteMyRace);
conn.on("start", (m) => noteMyRace({ race: m.race, status: "running" }));

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
Object.assign(pages, { arena: arenaPage, account: accountPage });

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
  keepRaceLabelsOf(w.races);
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
  // At or below the snapshot on hand: already in it (a repeat after a resync, whose event feed
  // ran behind Redis; docs/protocol.md §1). Applied, it would put the rival's row back, e.g. a
  // finished rival "playing" again until the end.
  if (m.ver <= (app.race.ver || 0)) return;
  const p = app.race.players.find((x) => x.player === m.player);
  if (p && p.status === "playing" && m.player !== myId()) rivalToast(p, m);
  if (p) Object.assign(p, { n: m.n, home: m.home, status: m.status, at: m.at });
  if (m.total) app.race.total = m.total;
  const li = document.querySelector(`#players li[data-player="${m.player}"]`);
  if (li && p) li.replaceWith(playerRows({ ...app.race, players: [p] })[0]);
  else render();
  if (app.route.kind === "race") renderMini();
});

conn.on("end", (m) => {
  // a race of ours: "Your recent races" is fresh when we come back to the lobby
  if ((m.ranking || []).some((r) => r.player === myId())) refreshRecent(m.race);
  keepArenaResult(m);
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
    note.textContent = delayNote(delay, m.at);
  }
});

conn.on("queued", () => {});

conn.on("rematch", (m) => {
  app.rematchOffer = m;
  if (app.route.kind === "race" && app.raceId === m.race) {
    toast([m.name, ...nameMarks(h, { account: m.account, player: m.by }), " offers a rematch"], "info", 4000);
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

document.body.classList.toggle("mark-movable", markMovable());
setInterval(() => (app.route.kind === "watch" ? tickWatch() : tickRace()), 200);
initHeader(onRoute);
window.addEventListener("hashchange", onRoute);
document.addEventListener("keydown", (e) => {
  // Space on a button presses it, never draws; on a card it is a press in keyboard play (the
  // board took it: defaultPrevented) and the draw after a mouse click (board_keys.js)
  const mouseCard = e.key === " " && e.target.closest && e.target.closest(".board:not(.keys) .pile");
  if (e.defaultPrevented || (keyForTarget(e) && !mouseCard)) return;
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
