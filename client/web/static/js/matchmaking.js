// The ways into a race that the lobby and the result panel both offer: quick match (with its
// banner while we wait), a new race, a race against a bot, and rematches (asked or offered).
import { gameName } from "./games.js";
import { errorText as errText, nameMarks } from "./words.js";
import { loggedIn } from "./accounts.js";
import { acceptRematch, raceBot, rematch } from "./botrace.js";
import { h, setBanner, toast } from "./dom.js";
import { app, conn, inviteSuffix, keepInvite } from "./state.js";

// A request that makes a race or seats the player may be answered after its timeout: the server
// may have done it all the same. The timeout's note says so (not that nothing happened), and the
// late reply (net.js keeps waiting LATE_REPLY_MS for it) leads to the race when this was the
// player's last ask and they are still on the page they asked from; else a note offers the race.
let asks = 0; // the player's asks for a race so far: a later one wins over a late reply
// How long the note offering a race that came late stays, ms (a plain note: 3.5 s).
const LATE_NOTE_MS = 20000;

function ask() {
  asks += 1;
  return { n: asks, hash: location.hash };
}

/** No other ask since `a`, and the page is still the one it came from. */
function stillAsked(a) {
  return a.n === asks && location.hash === a.hash;
}

/** The note of an ask that failed (`what`: "Could not create the race"): a timeout is not a refusal. */
function failed(what, e) {
  if (e && e.code === "timeout") toast("The server did not answer in time: the race may still appear.", "warn");
  else toast(`${what}: ${errText(e)}`, "error");
}

/** The `onLate` of ask `a`: `open(race)` when the reply is still wanted, else a note with a link. */
function lateRace(a, open, what) {
  return (reply) => {
    if (reply.t === "error") return toast(`${what}: ${errText(reply)}`, "error");
    keepInvite(reply);
    if (stillAsked(a)) return open(reply);
    const href = `#race=${reply.race}${inviteSuffix(reply.race)}`;
    toast(h("span", { class: "late-race" }, "The server answered late: your race is there after all. ", h("a", { href }, "Open the race")), "good", LATE_NOTE_MS);
  };
}

export async function quick(game, seats = 2, rated = app.rated && loggedIn()) {
  if (app.queued) await unqueue();
  const a = ask();
  const queued = () => {
    app.queued = { game, seats, rated };
    renderQueueBanner();
  };
  // late: in the queue after all (its banner says so, wherever the player is), unless they asked
  // for something else meanwhile: then out of it
  const onLate = (reply) => {
    if (reply.t === "error") {
      endQueueBanner();
      return toast(`Quick match failed: ${errText(reply)}`, "error");
    }
    if (a.n === asks) queued();
    else if (!app.queued || app.queued.game !== game) conn.request({ t: "unqueue", game }).catch(() => {});
  };
  try {
    await conn.request(rated ? { t: "quick", game, seats, rated } : { t: "quick", game, seats }, undefined, { onLate });
    queued();
  } catch (e) {
    if (e && e.code === "timeout") toast("The server did not answer in time: you may still be put in the queue.", "warn");
    else {
      endQueueBanner();
      toast(`Quick match failed: ${errText(e)}`, "error");
    }
  }
}

/** A quick refused: the page is in no queue, and a banner still saying "Looking for a rival"
 *  goes (the quick sent again after a reconnect, app.js, finds the last wait's banner up). Not
 *  another banner (a rematch offer), nor the banner of a wait asked for since. */
function endQueueBanner() {
  const banner = document.getElementById("banner");
  if (!app.queued && banner && banner.querySelector("#unqueue")) setBanner(null);
}

async function unqueue() {
  const q = app.queued;
  app.queued = null;
  renderQueueBanner();
  if (q) conn.request({ t: "unqueue", game: q.game }).catch(() => {});
}

export function renderQueueBanner() {
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

/** A new race (the lobby's "Create race…" form); `limit` null: on the server's clock (TIME_LIMIT_S).
 *  `focusReady`: its "I'm ready" takes the focus (a practice's). */
export async function createRace(game, seats, limit, priv, rated = app.rated && loggedIn(), focusReady = false) {
  const a = ask();
  const open = (race) => {
    keepInvite(race);
    if (focusReady && race.status === "lobby") app.focusReady = race.race;
    app.pendingSnapshot = race;
    location.hash = `race=${race.race}${inviteSuffix(race.race)}`;
  };
  try {
    // A rated race runs on the server's clock and has at least 2 seats.
    const clock = limit == null ? {} : { time_limit_s: limit };
    const msg = rated ? { t: "create", game, seats: Math.max(2, seats), private: priv, rated } : { t: "create", game, seats, ...clock, private: priv };
    open(await conn.request(msg, undefined, { onLate: lateRace(a, open, "No race after all") }));
  } catch (e) {
    failed("Could not create the race", e);
  }
}

/** Practice alone (the terminal's "Practice alone"): a private race of one seat on the server's
 *  clock, never rated (whatever the Rated box says), where the server gives hints. */
export function practise(game) {
  // it waits for its "I'm ready", which takes the focus the pressed Practice loses, as a
  // practice's new deal does (askRematch): Enter starts it
  return createRace(game, 1, null, true, false, true);
}

export async function startBotRace(game, level, limit) {
  const a = ask();
  const open = (race) => {
    app.pendingSnapshot = race;
    location.hash = `race=${race.race}`;
  };
  try {
    open(await raceBot(conn, game, level, limit, lateRace(a, open, "No race with a bot after all")));
  } catch (e) {
    failed("Could not start a race with a bot", e);
  }
}

export async function askRematch(raceId) {
  const a = ask();
  const open = (race) => {
    app.rematchOffer = null;
    setBanner(null);
    // a practice's new deal waits for its "I'm ready", which takes the focus (the Rematch button is gone)
    if (race.seats === 1 && race.status === "lobby") app.focusReady = race.race;
    app.pendingSnapshot = race;
    location.hash = `race=${race.race}`;
  };
  try {
    open(await rematch(conn, raceId, lateRace(a, open, "No rematch after all")));
  } catch (e) {
    failed("No rematch", e);
  }
}

export async function takeRematch(offer) {
  const a = ask();
  const open = (race) => {
    app.rematchOffer = null;
    setBanner(null);
    app.pendingSnapshot = race;
    location.hash = `race=${race.race}`;
  };
  try {
    open(await acceptRematch(conn, offer.rematch, offer.invite, lateRace(a, open, "No seat in the rematch after all")));
  } catch (e) {
    app.rematchOffer = null;
    setBanner(null);
    failed("Could not join the rematch", e);
  }
}

/** Whether the page at hand is the race an offer is for: its result panel shows the offer. */
function onOffersRace(offer) {
  return app.route.kind === "race" && app.raceId === offer.race;
}

export function renderRematchBanner() {
  const offer = app.rematchOffer;
  if (!offer || onOffersRace(offer)) return;
  setBanner(
    h(
      "div",
      { class: "queue rematch-offer" },
      // one flex item: the mark beside the name, not spaced off by the banner's gap
      h("span", {}, offer.name, nameMarks(h, { account: offer.account, player: offer.by }), " offers a rematch."),
      h("button", { class: "btn small primary", id: "accept-rematch-banner", onclick: () => takeRematch(offer) }, "Accept"),
      " ",
      h("button", { class: "btn small ghost", onclick: () => ((app.rematchOffer = null), setBanner(null)) }, "No thanks"),
    ),
  );
}

/** At a route change: an offer's banner gives way on its race's page (the result panel has the
 *  offer) and comes back elsewhere while the offer stands, unless another banner holds the place. */
export function routeRematchBanner() {
  const banner = document.getElementById("banner");
  const offer = app.rematchOffer;
  if (!banner) return;
  if (banner.querySelector(".rematch-offer")) {
    if (!offer || onOffersRace(offer)) setBanner(null);
  } else if (offer && banner.hidden) renderRematchBanner();
}
