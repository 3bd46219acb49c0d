// What the pages share: the one connection to the server, the `app` object (who we are, the
// route, the race on screen) and the small questions every page asks of them. A module of its
// own so that the router (app.js) and the pages import it, never each other.
import { Connection } from "./net.js";

export const conn = new Connection();

export const app = {
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
  dayCloseTimer: null, // a daily attempt's result is redrawn when its day closes (result.js)
  board: null,
  boards: new Map(), // spectator boards: player -> {n, view, board}
  boardsAt: null,
  error: null,
  raceList: [],
  raceGames: {}, // race id -> game, for the races we left before their end (kept in localStorage: lobby.js)
  raceStatus: {}, // race id -> status (lobby, countdown, running), likewise: the lobby's "Your races"
  lastArena: null, // our result in the last arena race that ended, for the next one's page (race_page.js)
  focusReady: null, // a race of one's own just opened (Practice, a new deal): its "I'm ready" takes the focus (race_page.js)
  focusBoard: null, // a race that started while its lobby panel had the focus: the board takes it (race_play.js)
};

/**
 * The page controllers that other pages ask for what they know: the race page asks the arena
 * page for an arena's name and Berserk, the result panel asks it for the points a race earned
 * and the account page for the rating change. app.js creates them and fills this in at start
 * (their callbacks redraw the race page, so they cannot be created here).
 */
export const pages = { arena: null, account: null };

// The race page's redraw (race_page.js renderRace, given as it loads) for the modules it imports
// that change what it shows (race_play.js, race_sync.js): they cannot import it back (no module
// imports another that imports it: tests/web/test_module_imports.py).
let raceRedraw = () => {};

export function onRaceRedraw(fn) {
  raceRedraw = fn;
}

/** The race page drawn again for the race on screen (race_page.js renderRace). */
export function redrawRace() {
  raceRedraw();
}

export function myId() {
  return app.me && app.me.player;
}

export function mySeat(race) {
  return race && race.players ? race.players.find((p) => p.player === myId()) : null;
}

// A private race opens only with its invite: its links carry it (`#race=ID&invite=SECRET`).
export function inviteSuffix(id) {
  return app.invites[id] ? `&invite=${app.invites[id]}` : "";
}

export function raceLink(id) {
  return `${location.origin}${location.pathname}#race=${id}${inviteSuffix(id)}`;
}

export function withInvite(msg) {
  const invite = app.invites[msg.race];
  return invite ? { ...msg, invite } : msg;
}

export function keepInvite(snap) {
  if (snap && snap.invite) app.invites[snap.race] = snap.invite;
}

/** How late spectators see the boards, in ms (the server's SPECTATOR_DELAY, from the welcome). */
export function spectatorDelayMs() {
  return (app.me && app.me.limits && app.me.limits.SPECTATOR_DELAY) || 10000;
}
