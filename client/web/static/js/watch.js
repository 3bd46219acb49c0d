// Watching: the list of live races (#watch) and a race's spectator page (#watch=ID), where every
// player's board comes one spectator delay late (SPECTATOR_DELAY) and their progress live.
import { gameName } from "./games.js";
import { Board } from "./board.js";
import { NOT_A_RACE_ID, NO_SUCH_RACE, countText, errorText as errText, isRaceId, raceStatusText } from "./words.js";
import { drawClock } from "./clock.js";
import { $, h } from "./dom.js";
import { raceListEl } from "./lobby.js";
import { playerRows } from "./players.js";
import { showSide } from "./race_page.js";
import { applySnapshot } from "./race_sync.js";
import { renderResult } from "./result.js";
import { app, conn, spectatorDelayMs, withInvite } from "./state.js";

export function renderWatchList() {
  $("#main").replaceChildren(
    h("div", { class: "lobby" }, h("section", { class: "panel" }, h("h2", {}, "Live races"), h("p", { class: "muted", id: "watch-delay" }, `Spectators see each board ${Math.round(spectatorDelayMs() / 1000)} s late, so nobody can help a racer.`), h("div", { id: "race-list" }, raceListEl()))),
  );
}

export async function openWatch(id) {
  if (!isRaceId(id)) {
    app.error = NOT_A_RACE_ID; // `#watch=hello`, as the race page and the replay say it
    return renderWatch();
  }
  // (its status before the reply: the reply is also a `race` event, applied on arrival by app.js)
  const before = app.race && app.race.race === id ? app.race.status : null;
  try {
    const snap = await conn.request(withInvite({ t: "spectate", race: id }));
    app.mode = "spectator";
    app.watchSince = conn.now(); // the first boards come one spectator delay after this (or the start)
    applySnapshot(snap);
    // Spectated again after a reconnect, the race ended while the page was away: the boards on
    // hand are from before the drop, without the moves made since, and no more come for a race
    // that is over. They go, as a finished race opened afresh shows none (its replay has them).
    if (before && before !== "finished" && app.race && app.race.status === "finished") dropBoards();
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
        "no-such-race": NO_SUCH_RACE, // as the race page and the replay say it
        "daily-open": "Daily challenge boards are secret until the day closes.",
      }[e.code] || errText(e);
    renderWatch();
  }
}

export function renderWatch() {
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
          // the race page's notes boxes (dom.js toast), in the page's flow: fixed at the bottom
          // of a phone's screen, a player's finish lay over the boards' lower cards and buttons
          h("div", { id: "race-notes", class: "race-notes", dataset: { notes: "side" }, "aria-live": "polite" }),
        ),
        h(
          "section",
          { class: "stage" },
          h("div", { id: "notice" }),
          h("div", { id: "result" }),
          h("div", { id: "board-notes", class: "board-notes", dataset: { notes: "board" }, "aria-live": "polite" }),
          h("div", { id: "boards", class: "boards" }),
          // which numbers are current, under the boards: on a phone the live counts come next
          h("p", { id: "boards-behind", class: "muted small boards-behind", hidden: true }),
          h("div", { id: "countdown", class: "countdown", hidden: true }),
        ),
      ),
    );
  }
  const notice = $("#notice");
  showSide(!!app.race); // no race (an unknown id): no "Watching –:––" panel over nothing
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
      ? h("p", { class: "muted small delay-note" }, delayNote(delay, app.boardsAt))
      : race.status === "lobby"
        ? h("p", { class: "muted" }, "The race has not started yet.")
        : "",
  );
  $("#race-title").textContent = `Watching ${gameName(race.game)}`;
  $("#race-sub").replaceChildren(h("span", { class: `pill p-${race.status}`, id: "race-status" }, raceStatusText(race.status)), ` · ${countText(race.players.length, "player")}`);
  $("#players").replaceChildren(...playerRows(race));
  renderBoards();
  renderResult();
  tickWatch();
}

/** What a spectator is told about the boards: how late they are, and why some cards are left
 *  out (every player has the same deal: a card a rival still playing has not turned up would
 *  tell them their own, docs/protocol.md §4: on the waste it shows its back, elsewhere its
 *  pile stops below it). */
export function delayNote(delay, at) {
  const late = `Spectating — boards are shown ${Math.round(delay / 1000)} s late (anti-cheat)${at ? `, as of ${new Date(at).toLocaleTimeString()}` : ""}; the progress bars and their counts are live`;
  return `${late}. Cards a rival still playing has not seen yet are left out (on the waste they show their backs).`;
}

export function renderBoards() {
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
  // Each board's own move count is as late as the board; the side panel's progress is live (a
  // spectator saw 49 moves there and 35 on the board, and nothing said which was current).
  const behind = $("#boards-behind");
  if (behind) {
    behind.hidden = !app.boards.size;
    behind.textContent = `Boards ${Math.round(spectatorDelayMs() / 1000)} s behind (anti-cheat) · the progress bars and their counts are live`;
  }
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

function dropBoards() {
  for (const b of app.boards.values()) if (b.board) b.board.destroy();
  app.boards.clear();
  app.boardsAt = null;
  const box = $("#boards");
  if (box) box.replaceChildren();
}

/** When the first delayed boards should come: one spectator delay after the start, or after we began watching. */
function boardsWaitText() {
  const race = app.race;
  const from = Math.max((race && race.starts_at) || 0, app.watchSince || 0);
  const left = Math.ceil((from + spectatorDelayMs() - conn.now()) / 1000);
  return left > 0 ? `The boards appear in ${left} s` : "The boards appear in a moment…";
}

/** Every 200 ms (app.js) and after each redraw: the clock, and how long until the first boards. */
export function tickWatch() {
  const race = app.race;
  if (!race || !$("#clock")) return;
  const now = conn.now();
  if (race.status === "countdown" && race.starts_at && now >= race.starts_at) {
    race.status = "running"; // a spectator gets no `start`: the countdown ends on the clock
    return renderWatch();
  }
  const wait = $("#boards-wait-text");
  if (wait) wait.textContent = boardsWaitText();
  drawClock(race, now);
}
