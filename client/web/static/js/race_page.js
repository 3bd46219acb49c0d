// The race page (#race=ID) of a player, or of a visitor of a finished race: keeping the race in
// step with the server (snapshots, versions, resyncs), the lobby panel before the start, the
// board and its moves, hints, Berserk in an arena, and the game-over cover until the race ends.
import { Connection } from "./net.js";
import { gameName } from "./games.js";
import { Board, moveMarks } from "./board.js";
import { parseView } from "./cards.js";
import { dailyOf } from "./daily.js";
import { arenaOf } from "./arena.js";
import { legendEl } from "./howto.js";
import { errorText as errText, moveText } from "./words.js";
import { BOT_LEVELS, addBot } from "./botrace.js";
import { drawClock, timeIsUp } from "./clock.js";
import { $, copyLink, fmtClock, h, toast } from "./dom.js";
import { STATUS_LABEL, playerRows } from "./players.js";
import { renderResult, setEnd } from "./result.js";
import { app, conn, inviteSuffix, keepInvite, myId, mySeat, pages, raceLink, spectatorDelayMs, withInvite } from "./state.js";

// ---------------------------------------------------------------- in step with the server

/** Take a snapshot of the race on screen (the watch page's too). */
export function applySnapshot(snap) {
  if (!snap || snap.race !== app.raceId) return;
  keepInvite(snap);
  app.race = snap;
  app.lastVer = Math.max(app.lastVer, snap.ver || 0);
  if (snap.status === "finished" && (snap.seed || snap.ranking) && !app.end) {
    setEnd({ race: snap.race, ver: snap.ver, seed: snap.seed, ranking: snap.ranking || [] });
  }
}

/** A race event's version: one skipped means an event was missed, and the page asks for the state again. */
export function checkVer(msg) {
  if (typeof msg.ver !== "number") return;
  if (app.lastVer && msg.ver > app.lastVer + 1) {
    resync(app.lastVer);
  }
  app.lastVer = Math.max(app.lastVer, msg.ver);
}

export async function resync(since) {
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

export function applyState(st) {
  if (!st || !st.race || st.race.race !== app.raceId) return;
  app.lastVer = 0;
  applySnapshot(st.race);
  if (st.you) {
    app.mode = "player";
    app.you = { ...st.you };
  }
  renderRace();
}

export async function openRace(id) {
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

// ---------------------------------------------------------------- the player's actions

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
    if (refusedForTime(e)) noteTimeUp();
    else toast(errText(e), "error");
  }
}

/**
 * A move or finish the server refused because the clock ran out while it was on its way (the
 * race over: race-not-running; a berserk player's own clock: game-over). The clock already
 * said so: not an error of the player's, so no error toast.
 */
function refusedForTime(e) {
  return (e.code === "race-not-running" || e.code === "game-over") && timeIsUp(app.race, conn.now());
}

let timeUpNoted = null; // the race whose "Time is up." was shown: once, however many clicks were in flight

function noteTimeUp() {
  if (timeUpNoted === app.raceId) return;
  timeUpNoted = app.raceId;
  toast("Time is up.", "info");
}

/** Called by the board: send one move, apply the ack. */
export async function sendMove(move) {
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
    if (refusedForTime(e)) noteTimeUp();
    else if (e.code === "illegal-move") toast(errText(e), "error");
    else if (e.code === "out-of-sync") resync(app.lastVer);
    else if (e.code === "timeout") resync(app.lastVer); // the truth about n and the board
    else if (e.code === "disconnected") toast("Connection lost — your board is resynced after reconnecting", "warn");
    else toast(errText(e), "error");
  }
}

// ---------------------------------------------------------------- drawing

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

export function renderRace() {
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
  const arenaInfo = arena ? pages.arena.arenaInfo(arena) : null;
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
  tickRace();
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
  const info = pages.arena.arenaInfo(arena);
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
  const snap = await pages.arena.berserk(race.race, arena);
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

/** The player's choice to mark the cards that can move (a class on the body, kept in localStorage). */
export function markMovable() {
  return localStorage.getItem("solrace.markMovable") === "1";
}

/** On phones the side panel is below the board: a line above it keeps the clock, you and your rivals in view. */
export function renderMini() {
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

/** A toast when a rival wins or stops (not for time-outs: everyone stops then, and the result says it). */
export function rivalToast(name, m) {
  const race = app.race;
  const t = race && race.starts_at && m.at ? ` in ${fmtClock(m.at - race.starts_at)}` : "";
  if (m.status === "won") toast(`${name} got every card home${t}!`, "warn", 5000);
  else if (m.status === "finished") toast(`${name} finished with ${m.home}/${m.total || race.total} cards home`, "info", 4000);
}

/** Every 200 ms (app.js) and after each redraw: the clock, and the time left on the game-over cover. */
export function tickRace() {
  const race = app.race;
  if (!race || !$("#clock")) return;
  const now = conn.now();
  const left = $("#cover-left");
  if (left) left.textContent = raceLeftText();
  const berserkBox = $("#race-berserk-box"); // too late once the countdown is over (`start` may lag)
  if (berserkBox) berserkBox.hidden = !!(race.starts_at && now >= race.starts_at);
  drawClock(race, now);
}
