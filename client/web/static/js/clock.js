// The race clock, as the race page and the watch page both show it: the time left (a berserk
// player's own half clock), the time elapsed, and the countdown over the stage before the start.
import { gameName } from "./games.js";
import { $, announce, fmtClock, h } from "./dom.js";
import { mySeat } from "./state.js";

// How far the page's estimate of the server's clock may be off (net.js: half a round trip at
// hello), so a refusal just past the deadline is still read as the clock running out.
const CLOCK_SLACK_MS = 1000;

/** When this player's clock runs out: a berserk player's own clock is half the race's (protocol/clock.py). */
export function myDeadline(race) {
  const seat = mySeat(race);
  if (seat && seat.berserk && race.starts_at) return race.starts_at + Math.ceil(race.time_limit_s / 2) * 1000;
  return race.deadline;
}

/** Whether this player's time is up at `now` (server time): the race is over, or its clock (theirs) has run out. */
export function timeIsUp(race, now) {
  if (!race) return false;
  if (race.status === "finished") return true;
  const end = myDeadline(race);
  return !!end && race.status === "running" && now >= end - CLOCK_SLACK_MS;
}

// What the clock has said aloud of one race (announce): each second of the countdown, the
// start and the last half minute once each, not on every redraw.
let saidOf = null;
let said = new Set();

function sayOnce(race, what, text) {
  if (race !== saidOf) {
    saidOf = race;
    said = new Set();
  }
  if (said.has(what)) return;
  said.add(what);
  announce(text);
}

/** Draws `race`'s clock at `now` (server time) into the page's #clock, if the page has one;
 *  `last`, a line under the countdown (our last arena race). */
export function drawClock(race, now, last = null) {
  const clock = $("#clock");
  if (!race || !clock) return;
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
    // a berserk player's own clock is shown: theirs runs out first
    const seat = mySeat(race);
    const berserk = !!(seat && seat.berserk);
    const left = myDeadline(race) - now;
    text = fmtClock(Math.max(0, left));
    lab = `left${berserk ? " (berserk: half the clock)" : ""} · ${fmtClock(now - race.starts_at)} elapsed`;
    urgent = left < 30000;
    if (now >= race.starts_at && now - race.starts_at < 5000) sayOnce(race.race, "go", "Go");
    // (not in the start's own seconds: a clock of 30 s is urgent from its start)
    if (urgent && left > 0 && now - race.starts_at >= 5000) sayOnce(race.race, "urgent", `${Math.ceil(left / 1000)} seconds left`);
  } else if (race.status === "finished") {
    text = "done";
    lab = "race finished";
  }
  clock.textContent = text;
  clock.classList.toggle("urgent", urgent);
  const mini = $("#clock-mini");
  if (mini) {
    mini.textContent = text;
    mini.classList.toggle("urgent", urgent);
    // what a screen reader says before it: "Time left 9:41", and once the race is over "Race done"
    const said = $("#clock-mini-said");
    if (said) said.textContent = race.status === "finished" ? "Race " : "Time left ";
  }
  if (label) label.textContent = lab;
  if (cd) {
    const counting = race.starts_at && now < race.starts_at && race.status !== "finished";
    cd.hidden = !counting;
    if (counting) {
      const s = Math.ceil((race.starts_at - now) / 1000);
      const first = saidOf !== race.race || !said.size;
      sayOnce(race.race, `cd${s}`, first ? `${gameName(race.game)} starts in ${s}` : `${s}`);
      const kids = [h("div", { class: "cd-num" }, s), h("div", { class: "cd-label" }, `${gameName(race.game)} — get ready`)];
      if (last) kids.push(h("div", { class: "cd-last", id: "countdown-last" }, `Your last race: ${last}`)); // the DOM writes a null as "null"
      cd.replaceChildren(...kids);
    }
  }
}
