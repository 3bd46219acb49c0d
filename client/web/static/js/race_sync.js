// Opening a race (#race=ID) and keeping it in step with the server: snapshots, event versions,
// resyncs; a player's seat found again, or taken (a visitor of a finished race only looks).
import { NOT_A_RACE_ID, NO_SUCH_RACE, errorText as errText, isRaceId } from "./words.js";
import { toast } from "./dom.js";
import { setEnd } from "./result.js";
import { app, conn, inviteSuffix, keepInvite, mySeat, redrawRace, withInvite } from "./state.js";
import { dailyOf, rememberDailyRace } from "./daily_attempts.js";
import { arenaOf, rememberArenaRace } from "./arena.js";

/** Take a snapshot of the race on screen (the watch page's too). */
export function applySnapshot(snap) {
  if (!snap || snap.race !== app.raceId) return;
  keepInvite(snap);
  // Older than the snapshot on hand: a reply that a newer event of its race overtook, or the
  // reverse. It would show the seats as they were (a rival's ready undone) until the next one.
  // (Not against lastVer: a move's ack may come before a rival's older event, which counts.)
  if (app.race && app.race.race === snap.race && (snap.ver || 0) < (app.race.ver || 0)) return;
  noteKind(snap);
  app.race = snap;
  app.lastVer = Math.max(app.lastVer, snap.ver || 0);
  if (snap.status === "finished" && (snap.seed || snap.ranking) && !app.end) {
    setEnd({ race: snap.race, ver: snap.ver, seed: snap.seed, ranking: snap.ranking || [] });
  }
}

/** A daily attempt or an arena race, as its snapshot says: noted as this browser notes the
 *  ones it started, so that a race opened on another device (or from "Your races") shows as one. */
function noteKind(snap) {
  if (snap.daily && mySeat(snap) && !dailyOf(snap.race) && snap.created) {
    rememberDailyRace(snap.race, snap.game, new Date(snap.created).toISOString().slice(0, 10));
  }
  if (snap.arena && !arenaOf(snap.race)) rememberArenaRace(snap.race, snap.arena);
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
  // Its events may go past its snapshot (read after it; docs/protocol.md §1): each is applied
  // as the live event it is. Left out, they were not shown, and the next live event looked
  // like a gap: the page resynced once more.
  for (const ev of st.events || []) if (ev.ver > (st.race.ver || 0)) conn.emit(ev.t, ev);
  redrawRace();
}

export async function openRace(id) {
  if (!isRaceId(id)) {
    // `#race=hello`: no race id at all, which the server would call "no such race" (expired?)
    app.error = NOT_A_RACE_ID;
    return redrawRace();
  }
  if (app.pendingSnapshot && app.pendingSnapshot.race === id) {
    applySnapshot(app.pendingSnapshot);
    app.pendingSnapshot = null;
    app.mode = mySeat(app.race) ? "player" : app.mode;
    redrawRace();
  }
  let st = null;
  try {
    const msg = withInvite({ t: "resync", race: id });
    if (app.lastVer) msg.since = app.lastVer;
    st = await conn.request(msg);
  } catch (e) {
    if (app.route.kind !== "race" || app.raceId !== id) return; // left meanwhile
    if (e.code === "no-such-race") {
      app.error = NO_SUCH_RACE;
      return redrawRace();
    }
    if (e.code === "private-race") {
      app.error = "This race is private: open it with the full link its players share (it carries the invite).";
      return redrawRace();
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
      return redrawRace();
    }
    if (app.race.status === "finished") {
      app.mode = "visitor";
      return redrawRace();
    }
    if (app.race.status !== "lobby") {
      location.hash = `watch=${id}${inviteSuffix(id)}`;
      return;
    }
  }
  // not seated: take a seat
  const seated = (snap) => {
    if (app.route.kind !== "race" || app.raceId !== id) return; // left meanwhile
    app.error = null;
    app.mode = "player";
    applySnapshot(snap);
    redrawRace();
  };
  // a seat taken after the timeout (net.js LATE_REPLY_MS): the page on this race takes it then
  const onLate = (reply) => reply.t !== "error" && seated(reply);
  try {
    seated(await conn.request(withInvite({ t: "join", race: id }), undefined, { onLate }));
  } catch (e) {
    if (app.route.kind !== "race" || app.raceId !== id) return; // left meanwhile
    if (e.code === "timeout") {
      app.error = "The server did not answer in time: your seat may still come.";
      return redrawRace();
    }
    if (e.code === "race-started") {
      location.hash = `watch=${id}${inviteSuffix(id)}`;
      return;
    }
    app.error =
      {
        "no-such-race": NO_SUCH_RACE,
        "race-full": "This race is full.",
        "private-race": "This race is private: open it with the full link its players share (it carries the invite).",
        "too-many-races": "You already sit in too many races.",
      }[e.code] || errText(e);
    redrawRace();
  }
}
