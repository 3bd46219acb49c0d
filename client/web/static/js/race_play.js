// The race page while the race runs: the board and your moves (acks, resyncs, the clock running
// out), hints, finishing early, the game-over cover until the race ends, the race's line on phones.
import { Board, moveMarks } from "./board.js";
import { parseView } from "./cards.js";
import { dailyOf } from "./daily_attempts.js";
import { legendEl } from "./howto.js";
import { boardPileText, countText, errorText as errText, moveText, nameMarks } from "./words.js";
import { timeIsUp } from "./clock.js";
import { $, answer, fmtClock, h, reveal, toast } from "./dom.js";
import { STATUS_LABEL } from "./players.js";
import { checkVer, resync } from "./race_sync.js";
import { app, conn, myId, mySeat, redrawRace } from "./state.js";

// ---------------------------------------------------------------- your moves

/** What "Finish my game" asks first: for a daily attempt, that it is the day's one ranked attempt. */
export function finishQuestion(race) {
  const daily = race && (race.daily || dailyOf(race.race));
  return daily
    ? "Stop playing? This ends your one ranked attempt at today's daily challenge: the cards you have home are your result, and you cannot play this deal again."
    : "Stop playing and keep the cards you have home?";
}

export async function finishGame() {
  if (!confirm(finishQuestion(app.race))) return;
  try {
    const ok = await conn.request({ t: "finish", race: app.raceId });
    if (typeof ok.ver === "number") app.lastVer = Math.max(app.lastVer, ok.ver);
    if (app.you) app.you.status = "finished";
    const me = mySeat(app.race);
    if (me) me.status = "finished";
    redrawRace();
  } catch (e) {
    if (refusedForTime(e)) noteTimeUp();
    else answer(refusalText(e), "error"); // under the button just pressed
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

/** A pile as this race's board names it (words.boardPileText): in hints, and in the server's
 *  refusals, which name piles the engine's way ("f4", said "foundation 5" before). */
function boardPile(pile) {
  return boardPileText(app.race && app.race.game, pile);
}

/** A refusal of the server as a sentence, its piles named as the board names them. */
function refusalText(e) {
  return errText(e, boardPile);
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
    redrawRace();
    if (ack.won) toast("All cards home — you won!", "good", 5000);
  } catch (e) {
    if (refusedForTime(e)) noteTimeUp();
    else if (e.code === "illegal-move") toast(refusalText(e), "error");
    else if (e.code === "out-of-sync") resync(app.lastVer);
    else if (e.code === "timeout") resync(app.lastVer); // the truth about n and the board
    else if (e.code === "disconnected") toast("Connection lost — your board is resynced after reconnecting", "warn");
    else toast(refusalText(e), "error");
  }
}

// ---------------------------------------------------------------- hints

/** Whether the server gives hints in this race (docs/protocol.md §3 `hint`): a casual race of one seat. */
export function hintsGiven(race) {
  return race.seats === 1 && race.hints !== false && !race.rated && !dailyOf(race.race);
}

/** What a hint says, under the side buttons (race_page.js #race-notes, with the page's other
 *  notes): one hint at a time, for 6 s, scrolled into sight if the buttons were at the screen's
 *  bottom edge (a phone's). */
function hintNote(text, kind) {
  dropHintNote();
  reveal(toast(text, `${kind} hint`, 6000, $("#race-notes")));
}

/** The hint's words gone: for the next hint, or at the end of your game (with the hint's marks
 *  on the board: they stayed up to 6 s over the result, for a move nobody could make). */
function dropHintNote() {
  const box = $("#race-notes");
  if (box) box.querySelectorAll(".toast.hint").forEach((t) => t.remove());
}

/** Ask the server for a hint and mark its move's piles on the board until the next move. */
export async function askHint() {
  const raceId = app.raceId;
  const btn = $("#hint-btn");
  if (!app.you || !raceId) return;
  if (btn) btn.disabled = true;
  try {
    const rep = await conn.requestWhileBusy({ t: "hint", race: raceId }, "solver-busy", 15000);
    if (raceId !== app.raceId || rep.n !== app.you.n) return; // moved on meanwhile: the hint is stale
    if (!app.race || !stillPlaying(app.race)) return; // your game ended meanwhile: nothing to hint
    app.hint = rep.move;
    if (!rep.move) {
      hintNote("Hint: nothing helps any more. Finish your game to keep your cards home.", "info");
      return;
    }
    if (app.board) {
      app.board.marks = moveMarks(rep.move, "hint");
      renderBoard();
    }
    const piles = parseView(app.you.view).piles;
    // the piles as the board labels them ("Kings foundation 1", not "foundation 13")
    hintNote(`Hint: ${moveText(rep.move, (pile) => piles[pile], boardPile)}`, "good");
  } catch (e) {
    if (raceId === app.raceId && app.race && !stillPlaying(app.race)) return; // (refused as the game ended)
    hintNote(`No hint: ${refusalText(e)}`, "error");
  } finally {
    const b = $("#hint-btn");
    if (b) b.disabled = false;
  }
}

// ---------------------------------------------------------------- the board

export function renderBoard() {
  const race = app.race;
  const wrap = $("#board-wrap");
  const you = app.you;
  const show = app.mode === "player" && you && you.view && race.status !== "lobby";
  wrap.hidden = !show;
  $("#mini-status").hidden = !show;
  const playing = show && stillPlaying(race);
  renderBoardExtras(show ? race.game : null, playing);
  if (!show) return;
  renderMini();
  if (!app.board) {
    app.board = new Board($("#board"), { interactive: true, onMove: sendMove, maxCard: 104 });
  }
  const me = mySeat(race);
  // a hint holds until the next move, or the end of your game: it glowed on the board for good
  if (!playing && app.board.marks.size) app.board.marks = new Map();
  if (!playing) dropHintNote(); // and its words with it
  app.board.room = playing; // your game over: no room kept for cards to come (a gap on a phone's result)
  app.board.set(you.view, playing ? you.legal || [] : []);
  // The race started under a player whose focus was on the lobby panel ("I'm ready", pressed
  // with Enter): gone with the panel, the focus fell to the page's body, where a screen reader
  // says nothing and Tab starts over from the header. The board takes it, as the game-over
  // cover does at the end; not from where the player has put it meanwhile.
  if (app.focusBoard === race.race && playing) {
    app.focusBoard = null;
    const at = document.activeElement;
    if (!at || at === document.body || at === $("#main") || !at.isConnected) app.board.focusStart();
  }
  const cover = $("#board-cover");
  const st = (me && me.status) || you.status;
  if (!playing && race.status !== "finished" && (st === "won" || st === "finished" || st === "timeout")) {
    const home = you.home !== undefined ? you.home : me ? me.home : 0;
    const key = `${st}:${home}`;
    cover.hidden = false;
    $("#board").inert = true; // under the cover: no Tab stops, nothing a screen reader offers to press
    if (cover.dataset.key !== key) {
      cover.dataset.key = key; // rebuilt only when it changes: a click on its button is not lost
      const at = document.activeElement;
      const lost = !at || at === document.body || !!at.closest("#board, #board-cover, #mark-movable-box"); // (that option just hidden)
      cover.replaceChildren(gameOverCover(st, home, race.total));
      // Your game just ended under you (Finish my game pressed, gone; a card played last; your
      // clock): its words take the focus, which brings them into sight and has a screen reader
      // say them. On a phone they lay at the top of the board, above the screen of a player who
      // pressed Finish my game under a tall board, with the focus on the page's body.
      if (lost) $("#cover-msg").focus();
    }
  } else {
    cover.hidden = true;
    $("#board").inert = false;
    delete cover.dataset.key;
  }
}

/** Whether your game is on: the race runs and you have not won, finished or run out of time. */
function stillPlaying(race) {
  const me = mySeat(race);
  const st = app.you && app.you.status;
  return race.status === "running" && (!me || me.status === "playing") && st !== "won" && st !== "finished" && st !== "timeout";
}

/** Over the board of a player whose game is over while the race runs: what happens next. */
function gameOverCover(st, home, total) {
  const title = st === "won" ? "★ You won! Every card is home." : st === "timeout" ? `Your clock ran out: ${home}/${total} cards home.` : `You stopped with ${home}/${total} cards home.`;
  return h(
    "div",
    { class: "cover-msg", id: "cover-msg", tabindex: -1 },
    h("div", { class: "cover-title" }, title),
    h("p", {}, "Your result is kept. The race ends when the others finish, or when its clock runs out in ", h("b", { id: "cover-left" }, raceLeftText()), "."),
    h("p", { class: "small muted" }, "Follow the others here, or go back to the lobby: you are told when the race ends, and its result stays here."),
    h("div", { class: "cover-actions" }, h("a", { class: "btn", id: "cover-lobby", href: "#/" }, "Back to the lobby")),
  );
}

export function raceLeftText() {
  const race = app.race;
  return race && race.deadline ? fmtClock(Math.max(0, race.deadline - conn.now())) : "–:––";
}

/** Under the board: the option to mark movable cards while you play (`playing`), and the legend
 *  of the piles. */
export function renderBoardExtras(game, playing = false) {
  const box = $("#board-extras");
  if (!box) return;
  if (!game) return box.replaceChildren();
  if (box.dataset.game !== game) buildBoardExtras(box, game);
  // Gone with your game: under the cover and the result no card can move, and the board shown
  // there marks none (the legend stays: it names the piles of the final board).
  $("#mark-movable-box", box).hidden = !playing;
}

function buildBoardExtras(box, game) {
  box.dataset.game = game;
  box.replaceChildren(
    h(
      "label",
      { class: "check small", id: "mark-movable-box" },
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

// A rival's game over, after their cards home on the phone's line: a win, or done playing.
const MINI_END = { won: " ★", finished: " done", timeout: " time up" };

/** The rival the line names: the most cards home (a win first among equals, then the seat order). */
function leadingRival(race) {
  const rivals = race.players.filter((p) => p.player !== myId());
  const score = (p) => (p.home || 0) * 2 + (p.status === "won" ? 1 : 0);
  return rivals.reduce((lead, p) => (!lead || score(p) > score(lead) ? p : lead), null);
}

/** On phones the side panel is below the board: the line under it (stuck to the screen's bottom
 *  while you play) keeps the clock, your cards home and the leading rival's in view. One
 *  line, whatever the seats: the others are in the side panel. */
export function renderMini() {
  const race = app.race;
  const box = $("#mini-status");
  if (!race || !box || box.hidden) return;
  // (not once your game is over: the cover over the board says the time left, and its
  // buttons could lie under the line)
  box.classList.toggle("live", stillPlaying(race));
  const me = mySeat(race);
  const home = app.you && app.you.home !== undefined ? app.you.home : me ? me.home : 0;
  $("#mini-home").textContent = `you ${home}/${race.total}`;
  const lead = leadingRival(race);
  const others = race.players.filter((p) => p.player !== myId()).length - 1;
  $("#mini-lead").hidden = !lead;
  $("#mini-lead").textContent = others > 0 ? ", leading rival " : ", rival ";
  $("#mini-rivals").replaceChildren(
    ...(lead
      ? [
          h(
            "span",
            { class: `mini-rival st-${lead.status}`, dataset: { player: lead.player }, title: `${lead.name}: ${lead.home}/${race.total} home, ${STATUS_LABEL[lead.status] || lead.status}` },
            h("span", { class: "mini-name" }, lead.name),
            nameMarks(h, lead),
            // a flex item of its own, spaced by the line's gap (a leading space collapses there;
            // it stays for the text read out)
            h("span", { class: "mini-count" }, ` ${lead.home}${MINI_END[lead.status] || ""}`),
          ),
          others > 0
            ? h(
                "span",
                { class: "mini-more", title: "The other rivals are in the list under the board" },
                h("span", { "aria-hidden": "true" }, `· ${others} more`),
                h("span", { class: "sr-only" }, `, and ${countText(others, "more rival")}`),
              )
            : null,
        ].filter(Boolean) // (replaceChildren writes a null as "null")
      : []),
  );
}

/** A toast when a rival (a player map) wins or stops, its name marked as everywhere (not for
 *  time-outs: everyone stops then, and the result says it). */
export function rivalToast(rival, m) {
  const race = app.race;
  const t = race && race.starts_at && m.at ? ` in ${fmtClock(m.at - race.starts_at)}` : "";
  const who = [rival.name, ...nameMarks(h, rival)];
  if (m.status === "won") toast([...who, ` got every card home${t}!`], "warn", 5000);
  else if (m.status === "finished") toast([...who, ` finished with ${m.home}/${m.total || race.total} cards home`], "info", 4000);
}
