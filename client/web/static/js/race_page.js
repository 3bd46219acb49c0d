// The race page (#race=ID) of a player, or of a visitor of a finished race: its frame and side
// panel, the lobby panel before the start, Berserk in an arena, the clock; race_sync.js keeps it
// in step with the server, race_play.js runs the board, result.js shows the end.
import { Connection } from "./net.js";
import { GAMES, gameName } from "./games.js";
import { dailyOf } from "./daily_attempts.js";
import { arenaOf } from "./arena.js";
import { errorText as errText, homeText, ordinal, raceStatusText } from "./words.js";
import { BOT_LEVELS, addBot } from "./botrace.js";
import { drawClock } from "./clock.js";
import { $, copyLink, h, toast } from "./dom.js";
import { markNav } from "./header.js";
import { placeIn, restorePlace } from "./keep_place.js";
import { playerRows } from "./players.js";
import { renderResult } from "./result.js";
import { askHint, finishGame, hintsGiven, raceLeftText, renderBoard, renderBoardExtras } from "./race_play.js";
import { applySnapshot } from "./race_sync.js";
import { app, conn, inviteSuffix, myId, mySeat, onRaceRedraw, pages, raceLink, spectatorDelayMs } from "./state.js";

// ---------------------------------------------------------------- the page

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
        h("div", { id: "last-race", class: "last-race", hidden: true }),
        h("div", { id: "side-actions", class: "side-actions" }),
        // the page's passing notes (dom.js toast: a hint's words, a rival's finish, "Link copied",
        // a refused move): under the buttons, in the page's flow, so that they cover nothing (at
        // the bottom of a phone's screen they lay over these buttons, or the board's cards); on a
        // phone only the answers to these buttons (board-notes has the others)
        h("div", { id: "race-notes", class: "race-notes", dataset: { notes: "side" }, "aria-live": "polite" }),
      ),
      h(
        "section",
        { class: "stage" },
        h("div", { id: "notice" }),
        h("div", { id: "result" }),
        h("div", { id: "lobby-panel" }),
        // a phone's notes nobody asked for (a rival's finish, a refused move): where the player
        // looks, not under a board that can be taller than the screen (dom.js toast)
        h("div", { id: "board-notes", class: "board-notes", dataset: { notes: "board" }, "aria-live": "polite" }),
        h("div", { id: "board-wrap", class: "board-wrap" }, h("div", { id: "board" }), h("div", { id: "board-cover", class: "board-cover", hidden: true })),
        // a phone's line of the race (race_play.js renderMini): under the board, and stuck to the
        // screen's bottom while you play, so that scrolled down a tall board you still see the
        // clock and the rivals; at the board's bottom it lies under it and covers no card.
        // Not a live region: its clock changes every second (clock.js says the last 30 s once).
        h(
          "div",
          { id: "mini-status", class: "mini-status", hidden: true },
          h("span", { id: "clock-mini-said", class: "sr-only" }, "Time left "),
          h("span", { id: "clock-mini", class: "clock-mini" }),
          h("span", { id: "mini-lead", class: "sr-only" }),
          h("span", { id: "mini-rivals", class: "mini-rivals" }),
          h("span", { class: "sr-only" }, ", "),
          h("span", { id: "mini-home" }),
          h("span", { class: "sr-only" }, " cards home"),
        ),
        h("div", { id: "board-extras", class: "board-extras" }),
        h("div", { id: "countdown", class: "countdown", hidden: true }),
      ),
    ),
  );
}

// (race_play.js and race_sync.js redraw the page through state.js: it imports them)
onRaceRedraw(renderRace);

export function renderRace() {
  if (app.route.kind !== "race") return;
  raceSkeleton();
  const race = app.race;
  const notice = $("#notice");
  // No race (an unknown id, a text that is none, not loaded yet): no side panel, which would only
  // say "Race –:––" over nothing; the stage takes the page's width.
  showSide(!!race);
  if (app.error) {
    // Someone without a seat sees why, and what they can do: never the players' lobby panel.
    $("#lobby-panel").replaceChildren();
    $("#result").replaceChildren();
    $("#board-wrap").hidden = true;
    $("#mini-status").hidden = true;
    renderBoardExtras(null);
    if (race) {
      renderSideHead(race);
      renderSideActions();
    }
    notice.replaceChildren(raceErrorPanel());
    return;
  }
  if (!race) {
    notice.replaceChildren(h("p", { class: "muted loading" }, "Loading race…"));
    return;
  }
  notice.replaceChildren();
  markNav(); // its snapshot may have told an arena's race or a daily attempt this browser did not know
  renderSideHead(race);
  renderLastArenaRace(race);
  renderSideActions();
  renderLobbyPanel();
  renderBoard();
  renderResult();
  tickRace();
}

/** The race page's (or the watch page's) side panel shown, or not: without it the stage takes
 *  the page's width (`.race-page.no-side`). */
export function showSide(shown) {
  const page = $("#main .race-page");
  if (!page) return;
  $(".side", page).hidden = !shown;
  page.classList.toggle("no-side", !shown);
}

/** The side panel's title, status line and players. */
function renderSideHead(race) {
  const arena = arenaOf(race.race); // an arena race: its arena's name (once known) before the game's
  const arenaInfo = arena ? pages.arena.arenaInfo(arena) : null;
  $("#race-title").textContent = (dailyOf(race.race) ? "Daily · " : "") + (arena ? `${(arenaInfo && arenaInfo.arena.name) || "Arena race"} · ` : "") + gameName(race.game);
  $("#race-sub").replaceChildren(
    h("span", { class: `pill p-${race.status}`, id: "race-status" }, raceStatusText(race.status)),
    ` · ${race.players.length}/${race.seats} seats · ${Math.round(race.time_limit_s / 60)} min`,
    race.private ? " · private" : "",
    race.rated ? h("span", { class: "pill rated", id: "race-rated" }, "rated") : "", // the DOM writes a null as "null"
  );
  $("#players").replaceChildren(...playerRows(race));
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
  // not an invitation from outside; nor on a race of one's own (a practice): nobody to share it with
  else if ((me || race.status !== "lobby") && race.seats !== 1) kids.push(h("button", { class: "btn ghost", id: "copy-race-link", onclick: () => copyLink(raceLink(race.race)) }, "Copy race link"));
  kids.push(h("a", { class: "btn ghost", href: "#/" }, "Lobby"));
  kids.push(h("div", { class: "muted small commit", title: "sha256(seed), published before the start" }, "fingerprint ", h("code", {}, (race.commitment || "").slice(0, 16) + "…")));
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

// ---------------------------------------------------------------- the last arena race

// The arena pairs a player again within a second or two of a race's end, and the next race's
// countdown (3 s by default) is too short to hold the result on screen without losing clock
// time: the result goes along instead, on the next race's countdown and side panel.

/** A race of ours ended: if it is an arena race, keep our result for the next race of its arena. */
export function keepArenaResult(end) {
  const arena = arenaOf(end.race);
  const mine = (end.ranking || []).find((r) => r.player === myId());
  if (!arena || !mine) return;
  const game = (app.race && app.race.race === end.race && app.race.game) || app.raceGames[end.race];
  const total = GAMES[game] ? GAMES[game].total : null;
  app.lastArena = { arena, race: end.race, rank: mine.rank, of: end.ranking.length, home: mine.home, total, asked: false };
}

/** Our last race in this race's arena, while this one has not ended; else null. */
function lastArenaRace(race) {
  const last = app.lastArena;
  const arena = arenaOf(race.race);
  if (!last || last.arena !== arena || last.race === race.race || race.status === "finished" || !mySeat(race)) return null;
  return last;
}

/** "2nd of 2 · 34/52 home · +3 arena points" (the points once the arena has counted them). */
function lastArenaText(race) {
  const last = lastArenaRace(race);
  if (!last) return null;
  const got = pages.arena.pointsOf(last.arena, last.race);
  if (!got && !last.asked) {
    last.asked = true; // the arena's reply redraws the page (app.js onArena)
    pages.arena.arenaInfo(last.arena, true);
  }
  const points = got ? ` · +${got.points} arena point${got.points === 1 ? "" : "s"}` : "";
  return `${ordinal(last.rank)} of ${last.of} · ${homeText(last.home, last.total)} home${points}`;
}

function renderLastArenaRace(race) {
  const box = $("#last-race");
  const text = lastArenaText(race);
  box.hidden = !text;
  if (!text) return box.replaceChildren();
  const last = app.lastArena;
  box.replaceChildren(
    h("div", { class: "muted small" }, "Your last race"),
    h("div", { id: "last-race-text" }, text),
    // a new tab: this race's clock runs on here
    h("a", { class: "small", id: "last-race-replay", href: `#replay=${last.race}`, target: "_blank", rel: "noopener" }, "Its replay ↗"),
  );
}

// ---------------------------------------------------------------- before the start

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

function renderLobbyPanel() {
  const race = app.race;
  const box = $("#lobby-panel");
  if (race.status !== "lobby") {
    // the race starts: the focus the panel held goes to the board once it is drawn (race_play.js)
    if (box.contains(document.activeElement)) app.focusBoard = race.race;
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
  const solo = race.seats === 1; // a race of one's own: nobody to wait for, nothing to share
  // drawn again at each change of the lobby (a rival comes, is ready): the focus stays where it
  // was ("I'm ready" as "Not ready" after a press of Enter), and the bot's level chosen
  const place = placeIn(box);
  const level = box.querySelector(".add-bot select");
  const chosen = level ? level.value : "greedy";
  box.replaceChildren(
    h(
      "div",
      { class: "panel lobby-panel" },
      h("h2", {}, solo ? "A race of your own" : "Waiting for players"),
      h("p", {}, solo ? "It starts when you are ready." : free > 0 ? `${free} seat${free > 1 ? "s" : ""} free. Share this link with a friend:` : "Every seat is taken. The race starts when everybody is ready."),
      solo ? null : h("div", { class: "share" }, h("input", { id: "share-link", readonly: true, value: link, onfocus: (e) => e.target.select() }), h("button", { class: "btn", onclick: () => copyLink(link) }, "Copy")),
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
            h("select", { name: "level", "aria-label": "Bot's level" }, BOT_LEVELS.map(([v, label]) => h("option", { value: v, selected: v === chosen }, label))),
            " ",
            h("button", { class: "btn small", type: "submit", id: "add-bot" }, "Add a bot"),
          )
        : null,
      solo ? null : h(
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
        isHost && !solo ? h("button", { class: "btn", id: "start-btn", disabled: !allReady || null, onclick: hostStart, title: "Start with the players present (all ready)" }, "Start now") : null,
        me ? h("button", { class: "btn ghost", onclick: leaveRace }, "Leave") : null,
      ),
    ),
  );
  restorePlace(box, place);
  // A practice came here (the lobby tile's Practice, its Rematch): "I'm ready" takes the focus
  // the pressed button lost (Enter or Space starts the deal), from the page itself (app.js
  // focuses #main at a route change), unless the player has put it somewhere meanwhile.
  if (app.focusReady === race.race) {
    app.focusReady = null;
    const at = document.activeElement;
    if (!at || at === document.body || at === $("#main") || !at.isConnected) $("#ready-btn").focus();
  }
}

// ---------------------------------------------------------------- every 200 ms

/** Every 200 ms (app.js) and after each redraw: the clock, and the time left on the game-over cover. */
export function tickRace() {
  const race = app.race;
  if (!race || !$("#clock")) return;
  const now = conn.now();
  const left = $("#cover-left");
  if (left) left.textContent = raceLeftText();
  const berserkBox = $("#race-berserk-box"); // too late once the countdown is over (`start` may lag)
  if (berserkBox) berserkBox.hidden = !!(race.starts_at && now >= race.starts_at);
  drawClock(race, now, lastArenaText(race));
}
