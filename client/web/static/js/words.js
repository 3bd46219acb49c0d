// Words for people: cards with suit symbols, piles by name, moves in plain
// English, and the protocol's error and refusal codes as sentences. Nothing
// the page shows should be an internal code.
import { SUITS, rankLabel } from "./cards.js";
import { GAMES } from "./games.js";

const PILE_WORDS = { f: "foundation", t: "tableau", r: "reserve" };

/** "9h" -> "9♥", "Tc" -> "10♣". */
export function cardText(code) {
  if (!code || code.length !== 2 || !SUITS[code[1]]) return String(code);
  return `${rankLabel(code)}${SUITS[code[1]]}`;
}

/** "1 attempt", "2 attempts": a count with its noun. */
export function countText(n, word, many = `${word}s`) {
  return `${n} ${n === 1 ? word : many}`;
}

/** "f0" -> "foundation 1", "t3" -> "tableau 4", "w" -> "waste", "s" -> "stock". */
export function pileText(name) {
  if (name === "w") return "waste";
  if (name === "s") return "stock";
  const m = /^([a-z]+)(\d+)$/.exec(name || "");
  if (m && PILE_WORDS[m[1]]) return `${PILE_WORDS[m[1]]} ${parseInt(m[2], 10) + 1}`;
  return String(name);
}

// A foundation group's label on the board (games.json: "Kings ↓ K→A", "Sequences K…A", …) by its
// first word, as a pile's name: ranks as the board writes them, common nouns singular.
const GROUP_NOUNS = { Colour: "colour", Sequences: "sequence" };

/**
 * A pile named the way the board of the game `gameId` labels it: f12 of Racing Aces, the first
 * pile of the group "Kings ↓ K→A", is "Kings foundation 1", not "foundation 13". A pile of a group
 * labelled plainly (Foundations, Tableau, Reserves, Stock, Waste) is named as pileText names it.
 */
export function boardPileText(gameId, name) {
  const game = GAMES[gameId];
  for (const col of (game && game.cols) || []) {
    for (const row of col) {
      for (const group of row) {
        const i = group.piles.indexOf(name);
        if (i < 0) continue;
        const word = group.label.split(" ")[0];
        if (name[0] !== "f" || word === "Foundations") return pileText(name);
        const noun = `${GROUP_NOUNS[word] || word} foundation`;
        return group.piles.length > 1 ? `${noun} ${i + 1}` : noun;
      }
    }
  }
  return pileText(name);
}

/**
 * A group's label as the board shows it: a pile the label names (Rouge et Noir's "Colour ↑ A→K
 * (pairs f0·f1, f2·f3)", the engine's names, which the terminal's board shows over its piles) by
 * its place in the group, from 1, as boardPileText numbers it: "(pairs 1·2, 3·4)", so that a hint
 * "to colour foundation 2" is the second pile of the first pair.
 */
export function groupLabelText(group) {
  return String(group.label).replace(/\b[ftr]\d+\b/g, (name) => {
    const i = group.piles.indexOf(name);
    return i >= 0 ? String(i + 1) : pileText(name);
  });
}

/**
 * A move in words. `cardsOf(pile)` (optional) gives the pile's cards before
 * the move, so the card moved can be named; `pileName(pile)` names a pile
 * (boardPileText for the board's own words).
 */
export function moveText(move, cardsOf, pileName = pileText) {
  if (move === "draw") return "draw from the stock";
  const m = /^([a-z]+\d*)(?::(\d+))?>([a-z]+\d*)$/.exec(move || "");
  if (!m) return String(move);
  const k = m[2] ? parseInt(m[2], 10) : 1;
  const cards = cardsOf ? cardsOf(m[1]) || [] : [];
  const first = cards.length >= k ? cards[cards.length - k] : null;
  let what = k === 1 ? "a card" : `${k} cards`;
  if (first) what = k === 1 ? cardText(first) : `${cardText(first)} and the ${k - 1} card${k > 2 ? "s" : ""} on it`;
  return `${what} from ${pileName(m[1])} to ${pileName(m[3])}`;
}

/** Card codes and pile names inside a server message, in words; `pileName` names a pile (a race
 *  page's: boardPileText for its game, as its board and hints name them). */
export function humanize(text, pileName = pileText) {
  return String(text || "")
    .replace(/\b([A2-9TJQK])([cdhs])\b/g, (_, r, s) => cardText(r + s))
    .replace(/\b([ftr])(\d+)\b/g, (_, p, n) => pileName(p + n));
}

// Race ids are an "r" and 16 hex digits (server/storage/keys.py): any other text (a link's
// `#race=hello`, the Join box's paste) is mistyped or cut short, and the server would only say
// "no such race", as it does of an expired one.
const RACE_ID = /^r[0-9a-f]{16}$/;

/** Whether `text` is shaped like a race id (the server still has to know it). */
export function isRaceId(text) {
  return RACE_ID.test(String(text || ""));
}

/** What a link (race page, watching, replay) says of a text that is no race id. */
export const NOT_A_RACE_ID = "This is not a race id (an r and 16 hex digits): check the link.";

/** What a link (race page, watching, replay) says of a race id the server does not know: its
 *  `no-such-race` is the same for an id never given and for a race whose record has expired,
 *  so the words hold for both, and the three pages say them alike. */
export const NO_SUCH_RACE = "No race has this id: it may be mistyped, or too old to be kept.";

const REFUSALS = {
  "bad-notation": "that is not a move",
  "no-such-pile": "this game has no such pile",
  "same-pile": "a card cannot move onto its own pile",
  "not-available": "that card cannot be moved",
  "not-accepted": "that pile does not take this card",
  "stock-empty": "the stock is empty (there is no redeal)",
};

const ERRORS = {
  "bad-frame": "The server could not read a message from this page.",
  "bad-message": "The server refused a malformed request.",
  "unknown-type": "This server does not know that request.",
  "hello-first": "Not connected yet.",
  "bad-version": "This page and the server speak different protocol versions.",
  "bad-token": "Your session expired: you have a new identity.",
  "rate-limited": "Too many actions at once: slow down a little.",
  "unknown-game": "This server does not have that game.",
  "no-such-race": "There is no such race (it may have expired).",
  "not-in-race": "You do not have a seat in this race.",
  "race-full": "This race is full.",
  "race-started": "This race has already started.",
  "not-host": "Only the host can start the race.",
  "not-ready": "Everybody must be ready first.",
  "too-many-races": "You already sit in too many races.",
  "race-not-running": "The race is not running.",
  "game-over": "Your game is over: no more moves.",
  "out-of-sync": "Your board was out of date: it has been refreshed.",
  "illegal-move": "That move is not allowed.",
  "race-not-over": "This race is not over yet.",
  "private-race": "This race is private: it opens only with its invite link.",
  "is-player": "You play in this race, so you cannot watch it.",
  "daily-open": "Daily challenge boards stay secret until the day closes.",
  "daily-not-open": "That day has not begun yet.",
  "daily-done": "You have played today's deal already.",
  "daily-closing": "The day closes in less than a minute: come back tomorrow.",
  "daily-busy": "Your attempt is being created: try again.",
  "no-replay": "That replay is not published.",
  "bad-name": "Account names are 3 to 20 letters, digits, _ or -, starting with a letter or digit.",
  "bad-password": "Passwords are 8 to 256 characters, and not the name.",
  "name-taken": "That account name is taken.",
  "already-account": "This player already is an account.",
  "login-limited": "Too many login attempts: wait a few minutes.",
  "claim-limited": "Too many accounts made from this address: wait a few minutes.",
  "bad-login": "Unknown name or wrong password.",
  "not-logged-in": "Rated races are for accounts: log in (Account, at the top) first.",
  conflict: "The password was changed meanwhile.",
  "no-such-account": "This player has no account.",
  "not-rateable": "A rated race needs at least 2 players.",
  internal: "The server had a problem: nothing was changed.",
  "solver-busy": "The solver is busy: try again in a moment.",
  timeout: "The server did not answer in time.",
  disconnected: "The connection was lost.",
};

/** An error reply (or thrown error) as a sentence. The server names piles the engine's way
 *  ("f4"); `pileName` says them as the page's board does: a race page gives boardPileText for its
 *  game (Rouge et Noir's f4 is "sequence foundation 1", not "foundation 5"). */
export function errorText(e, pileName = pileText) {
  if (!e) return "Something went wrong.";
  if (e.code === "illegal-move") {
    const why = REFUSALS[e.reason];
    // the server's message starts with the move and the code: keep only its explanation
    const detail = humanize(String(e.message || "").replace(/^illegal move '[^']*' \([\w-]+\):\s*/, ""), pileName);
    return `Not allowed: ${detail || why || "that move breaks the rules"}.`;
  }
  if (e.code && ERRORS[e.code]) return ERRORS[e.code];
  // no-bots: every bot busy (the server's "no bot worker has a free slot": its own words), or
  // the player's own bots waiting already, which the server's message says plainly
  if (e.code === "no-bots" && !/waiting/.test(String(e.message || ""))) return "Every bot is racing already: try again in a minute.";
  if (e.message) return humanize(e.message, pileName);
  return typeof e === "string" ? humanize(e, pileName) : "Something went wrong.";
}

/** "1st", "2nd", "3rd", "4th", "11th", "22nd": a place. */
export function ordinal(n) {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? "th" : { 1: "st", 2: "nd", 3: "rd" }[n % 10] || "th";
  return `${n}${suffix}`;
}

/** A rating change: "+12", "−8" (a minus sign, not a hyphen), "±0". */
export function signedText(n) {
  if (n > 0) return `+${n}`;
  if (n < 0) return `\u2212${-n}`;
  return "\u00b10";
}

/**
 * When something happened, relative to `now` (both ms since the epoch, the server's clock):
 * "just now", "5 min ago", "2 h ago"; from a day back, the local date.
 */
export function agoText(at, now = Date.now()) {
  const ms = Math.max(0, now - at);
  if (ms < 60_000) return "just now";
  if (ms < 3_600_000) return `${Math.floor(ms / 60_000)} min ago`;
  if (ms < 86_400_000) return `${Math.floor(ms / 3_600_000)} h ago`;
  return new Date(at).toLocaleDateString();
}

/** A race's status in words, for its badge: the protocol's `lobby` (seats filling, players getting
 *  ready) reads "not started", apart from the race page's "Lobby" button (back to the lobby page). */
export function raceStatusText(status) {
  return { lobby: "not started", countdown: "starting" }[status] || status;
}

/** Cards home out of the deal's cards, "12/104" ("12/?" while the total is unknown): the result
 *  and the replay write it alike, so a player reads the same number on both pages. */
export function homeText(home, total) {
  return `${home}/${total || "?"}`;
}

/** The result panel's heading for your ranking row (`mine`, or null for a visitor) in a race
 *  of `players` (`practice`: a private race of one seat); a win on cards home (nobody got them all) says how many. `tied`: whether
 *  another row shares your rank (protocol/ranking.py: equal keys share it, 1, 1, 3), when
 *  nobody won alone: both players of a tie were told "You win the race". */
export function resultHeading(daily, mine, players, total, tied = false, practice = false) {
  if (daily) return `Daily attempt over: ${mine && mine.won ? "all cards home!" : `${homeText(mine ? mine.home : "?", total)} home`}`;
  if (!mine) return practice ? "Practice over" : "Race over";
  // alone (a practice: a private race of one seat, or a race nobody else played), there is no
  // rival to rank against: "#1" would be said with no card home. Say how the deal went.
  if (players < 2) {
    const what = practice ? "practice" : "race";
    return mine.won ? `All cards home — ${what} won` : `${practice ? "Practice" : "Race"} over: ${homeText(mine.home, total)} cards home`;
  }
  if (tied && players >= 2) {
    if (mine.rank !== 1) return `You tie for #${mine.rank}`;
    return mine.won ? "★ You tie for the win!" : `★ You tie for first, with ${homeText(mine.home, total)} cards home`;
  }
  if (mine.rank !== 1) return `You finished #${mine.rank}`;
  return mine.won ? "★ You win the race!" : `★ You win the race, with ${homeText(mine.home, total)} cards home`;
}

// Scheduled arenas are named by their UTC start ("Daily Racing Aces · 20:00 UTC") and the daily
// challenge closes at a UTC midnight: every arena and daily time is written in UTC, 24-hour, so a
// time shown beside a name never reads as another clock (the browser's zone, or its 12-hour habit).

/** A time of day in UTC: "14:00 UTC". */
export function utcTimeText(ms) {
  return `${new Date(ms).toISOString().slice(11, 16)} UTC`;
}

/** A date and time in UTC: "2025-03-07 14:00 UTC". */
export function utcDateTimeText(ms) {
  return `${new Date(ms).toISOString().slice(0, 10)} ${utcTimeText(ms)}`;
}

/** An arena's hours at `now`, in UTC: "14:00 UTC–15:00 UTC"; a start on another UTC day than
 *  `now` carries its date, and so does an end on another day than the start ("23:30 UTC–
 *  2026-12-05 00:00 UTC"): the hours alone read as today's. */
export function utcSpanText(starts, ends, now) {
  const day = (ms) => Math.floor(ms / 86_400_000);
  const begin = day(starts) === day(now) ? utcTimeText(starts) : utcDateTimeText(starts);
  return `${begin}–${day(ends) === day(starts) ? utcTimeText(ends) : utcDateTimeText(ends)}`;
}

/** A time left, coarse: "m:ss", or "Hh MMm" from an hour on ("—" if unknown). */
export function timeLeftText(ms) {
  if (ms === null || ms === undefined || !isFinite(ms)) return "—";
  let s = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  return h ? `${h}h ${String(m).padStart(2, "0")}m` : `${m}:${String(s).padStart(2, "0")}`;
}

/** mm:ss (or h:mm:ss) of a duration in ms. */
export function clockText(ms) {
  if (ms === null || ms === undefined || !isFinite(ms)) return "—";
  let s = Math.max(0, Math.round(ms / 100) / 10);
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  const sec = s.toFixed(1).padStart(4, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${sec}` : `${m}:${sec}`;
}

/**
 * The "Time" of a ranking or leaderboard row, with what it measures: the time
 * to win for a winner, the moment of the finish for one who stopped, the last
 * move for one whose clock ran out (the row's `last_move_ms`, or `lastMoveMs`
 * worked out from a replay by an older server). For non-winners the time only
 * informs: cards home, the moment they were reached and moves rank them.
 */
export function timeCell(r, lastMoveMs) {
  if (r.won) return { text: clockText(r.time_ms), label: "won in", title: "time from the start to the last card home" };
  if (r.status === "finished" && r.time_ms !== null && r.time_ms !== undefined)
    return { text: clockText(r.time_ms), label: "stopped at", title: "time from the start to when the player declared the game finished" };
  const last = r.last_move_ms !== null && r.last_move_ms !== undefined ? r.last_move_ms : lastMoveMs;
  if (last !== null && last !== undefined)
    return { text: clockText(last), label: "last move", title: "time from the start to the player's last move; the clock ran out" };
  if (r.moves === 0) return { text: "—", label: "no move", title: "the clock ran out before the player's first move" };
  return { text: "—", label: "time up", title: "the clock ran out" };
}

/** Why a player ranks above another with as many cards home (protocol/ranking.py): who reached
 *  that count first, else who made more moves. The Time column is not what decides it, so it is
 *  said (client/tui/text.py `tie_break_notes` says the same in the terminal). */
export function tieBreakNotes(ranking) {
  const notes = [];
  for (let i = 0; i + 1 < ranking.length; i++) {
    const a = ranking[i];
    const b = ranking[i + 1];
    if (a.won || b.won || a.home !== b.home || a.rank === b.rank) continue;
    const head = `${a.name || a.player} ranks above ${b.name || b.player} with as many cards home (${a.home}): `;
    const atA = a.home_at_ms;
    const atB = b.home_at_ms;
    notes.push(
      atA !== atB
        ? `${head}reached that count first (${clockText(atA)} against ${clockText(atB)})`
        : `${head}more moves (${a.moves} against ${b.moves})`,
    );
  }
  return notes;
}

/** How many moves of a winning line the analysis sentence shows; the rest fold away. */
const LINE_SHOWN = 8;

// A move as the engine writes it ("t0>f4", "t2:3>t5"; "draw" is a word already).
const ENGINE_MOVE = /\b[a-z]\d*(?::\d+)?>[a-z]\d*\b/g;

/** A move of a solver's line, short, with the piles named by `pileName` (boardPileText for the
 *  page's game, as its board labels them): "tableau 1 → Aces foundation 1", "3 cards: tableau 2
 *  → tableau 5", "draw". */
export function lineMoveText(move, pileName = pileText) {
  const m = /^([a-z]+\d*)(?::(\d+))?>([a-z]+\d*)$/.exec(move || "");
  if (!m) return String(move);
  const run = m[2] && m[2] !== "1" ? `${m[2]} cards: ` : "";
  return `${run}${pileName(m[1])} → ${pileName(m[3])}`;
}

/** One player's analysis as a list item, its moves named as the board names the piles
 *  (`pileName`): the server's sentence writes them the engine's way ("t2>f5", piles from 0),
 *  which the board never shows; that sentence stays the item's title, and a long winning line's
 *  engine text stays under its disclosure (as `solrace analyze` prints them, to compare). The
 *  line is shortened in the sentence, and shown whole, numbered from its first move, under a
 *  disclosure when it is long (a line can run to hundreds of moves). */
export function analysisItem(h, p, pileName = pileText) {
  const line = p.line || [];
  const attrs = { dataset: { player: p.player, verdict: p.verdict }, title: p.text };
  const words = (text) => text.replace(ENGINE_MOVE, (move) => lineMoveText(move, pileName));
  const inWords = (moves) => moves.map((move) => lineMoveText(move, pileName)).join(", ");
  const whole = line.join(" ");
  if (!whole || !p.text.includes(whole)) return h("li", attrs, h("b", {}, p.name), ": ", words(p.text));
  const [before, after] = [p.text.slice(0, p.text.indexOf(whole)), p.text.slice(p.text.indexOf(whole) + whole.length)];
  if (line.length <= LINE_SHOWN) return h("li", attrs, h("b", {}, p.name), ": ", words(before), inWords(line), words(after));
  const first = (p.last_winnable ?? 0) + 1; // the line starts after the player's last winnable move
  return h(
    "li",
    attrs,
    h("b", {}, p.name),
    ": ",
    `${words(before)}${inWords(line.slice(0, LINE_SHOWN))} … (${line.length} moves)${words(after)}`,
    h(
      "details",
      { class: "line" },
      h("summary", {}, "The whole line"),
      h("ol", { start: first }, line.map((move) => h("li", {}, lineMoveText(move, pileName)))),
      h("p", { class: "muted small" }, "As the engine writes it: ", h("code", {}, whole)),
    ),
  );
}

/**
 * The marks beside a player's name that the server vouches for (docs/protocol.md §3): ✓ for an
 * account (`account` of a player map, ranking row, board entry or standings row) and "bot" for
 * a bot (an id starting "bot-", or a `race_list` seat's `bot`). Anyone may take any display
 * name: these tell the real player from a look-alike. Each mark has an accessible label.
 */
export function nameMarks(h, who) {
  const bot = who.bot || (typeof who.player === "string" && who.player.startsWith("bot-"));
  return [
    who.account ? h("span", { class: "acct-badge", role: "img", "aria-label": "account", title: "a registered account" }, "✓") : null,
    bot ? h("span", { class: "bot-badge", role: "img", "aria-label": "bot", title: "a computer player" }, "bot") : null,
  ].filter(Boolean);
}

/** The seed checked against the deal's fingerprint in the browser (sha256.js: `{ok, hex, how}`,
 *  null while it runs), as the result, replay and daily pages say it. Which sha256 did it
 *  (`how`: "crypto.subtle", the browser's, or this page's "fallback") is a tooltip: it stood in
 *  the sentence, an API's name among a player's words. */
export function verifyText(v) {
  if (!v) return "checking sha256(seed)…";
  return v.ok ? "✔ sha256(seed) matches the deal's fingerprint (checked in your browser)" : `✘ sha256(seed) = ${v.hex} does NOT match the deal's fingerprint`;
}

/** The tooltip of verifyText: which sha256 computed it. */
export function verifyTitle(v) {
  if (!v) return null;
  return v.how === "fallback" ? "Computed by this page's own sha256 (the browser offers its own on https and local addresses only)" : "Computed by the browser's own sha256 (crypto.subtle)";
}
