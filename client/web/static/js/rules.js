// The rules engine in the browser: the deal of docs/rules.md (seeded shuffle,
// deal algorithm version 1) and the move rules of the four games, so the page
// can re-deal a finished race from its revealed seed and replay every move
// (the replay viewer), and let a learner play a small position (how to play).
// The server's engine stays the authority during a race; this one is checked
// against it by the browser tests, deal for deal and move for move.
import { sha256Fallback } from "./sha256.js";

const RANKS = "A23456789TJQK";
const SUITS = "cdhs";
const rankOf = (f) => (f % 13) + 1;
const suitOf = (f) => Math.floor(f / 13);
const redOf = (f) => (suitOf(f) === 1 || suitOf(f) === 2 ? 1 : 0);
export const codeOf = (f) => RANKS[f % 13] + SUITS[suitOf(f)];
export const faceOf = (code) => {
  const r = RANKS.indexOf(code[0]);
  const s = SUITS.indexOf(code[1]);
  if (code.length !== 2 || r < 0 || s < 0) throw new Error(`not a card code: ${code}`);
  return s * 13 + r;
};

// Pile kinds: what a pile accepts and whether it gives cards.
const FOUNDATION = "foundation"; // any suit, from `start` by `step`
const COLOUR = "colour"; // A up in one colour; an empty one follows the pair rule
const SEQUENCE = "sequence"; // takes one whole K..A alternating run, keeps it
const SUIT_WRAP = "suit-wrap"; // 4 up in suit, K wraps to A, the 3 ends it
const RESERVE = "reserve";
const SINGLE = "single"; // a tableau spot holding one card
const ALTERNATE = "alternate"; // tableau down in alternating colours, K to empty
const DOWN = "down"; // tableau down any suit on 5..K, anything to empty
const STOCK = "stock";
const WASTE = "waste";
const FOUNDATION_KINDS = new Set([FOUNDATION, COLOUR, SEQUENCE, SUIT_WRAP]);
const TABLEAU_KINDS = new Set([SINGLE, ALTERNATE, DOWN]);

const named = (prefix, a, b, kind, extra = {}) =>
  Array.from({ length: b - a + 1 }, (_, i) => ({ name: `${prefix}${a + i}`, kind, ...extra }));

const DEFS = {
  "racing-aces": {
    decks: 3,
    piles: [
      ...named("f", 0, 3, FOUNDATION, { start: 1, step: 1 }),
      ...named("f", 4, 7, FOUNDATION, { start: 6, step: -1 }),
      ...named("f", 8, 11, FOUNDATION, { start: 7, step: 1 }),
      ...named("f", 12, 15, FOUNDATION, { start: 13, step: -1 }),
      ...named("r", 0, 2, RESERVE),
      ...named("t", 0, 5, SINGLE),
      { name: "s", kind: STOCK },
      { name: "w", kind: WASTE },
    ],
    reserveRounds: 13,
    tableauSizes: [1, 1, 1, 1, 1, 1],
    refill: true,
  },
  "double-aces-and-kings": {
    decks: 4,
    piles: [
      ...named("f", 0, 7, FOUNDATION, { start: 1, step: 1 }),
      ...named("f", 8, 15, FOUNDATION, { start: 13, step: -1 }),
      ...named("r", 0, 3, RESERVE),
      ...named("t", 0, 7, SINGLE),
      { name: "s", kind: STOCK },
      { name: "w", kind: WASTE },
    ],
    reserveRounds: 13,
    tableauSizes: [1, 1, 1, 1, 1, 1, 1, 1],
  },
  "rouge-et-noir": {
    decks: 2,
    piles: [
      { name: "f0", kind: COLOUR, partner: "f1" },
      { name: "f1", kind: COLOUR, partner: "f0" },
      { name: "f2", kind: COLOUR, partner: "f3" },
      { name: "f3", kind: COLOUR, partner: "f2" },
      ...named("f", 4, 7, SEQUENCE),
      ...named("t", 0, 9, ALTERNATE),
      { name: "s", kind: STOCK },
    ],
    tableauSizes: [8, 7, 6, 5, 4, 3, 2, 1, 1, 0],
    faceDown: true,
    drawToTableau: true,
    colourToColour: false,
  },
  "fours-up": {
    decks: 2,
    piles: [...named("f", 0, 7, SUIT_WRAP), ...named("t", 0, 5, DOWN), { name: "s", kind: STOCK }, { name: "w", kind: WASTE }],
    tableauSizes: [1, 1, 1, 1, 1, 1],
    baseRank: 4,
  },
};

export const RULE_GAMES = Object.keys(DEFS);

function gameDef(id) {
  const d = DEFS[id];
  if (!d) throw new Error(`unknown game ${id}`);
  if (!d.index) {
    d.total = d.decks * 52;
    d.names = d.piles.map((p) => p.name);
    d.index = Object.fromEntries(d.names.map((n, i) => [n, i]));
    d.kinds = d.piles.map((p) => p.kind);
    d.found = d.kinds.map((k) => FOUNDATION_KINDS.has(k));
    d.tab = d.kinds.map((k) => TABLEAU_KINDS.has(k));
    d.gives = d.kinds.map((k) => k !== STOCK && k !== SEQUENCE);
    d.runs = d.kinds.map((k) => k === ALTERNATE || k === DOWN);
    d.receives = d.kinds.map((k) => k !== STOCK && k !== WASTE && k !== RESERVE);
    d.homeOk = d.kinds.map((k) => d.colourToColour !== false || k !== COLOUR);
    d.foundIdx = d.kinds.flatMap((k, i) => (d.found[i] ? [i] : []));
    d.tabIdx = d.kinds.flatMap((k, i) => (d.tab[i] ? [i] : []));
    d.reserveIdx = d.kinds.flatMap((k, i) => (k === RESERVE ? [i] : []));
    d.stockIdx = d.index.s;
    d.wasteIdx = d.index.w;
  }
  return d;
}

/** Does a pile of kind `p` take face `f` on top face `top` (a card, not an empty pile)? */
function takesOn(p, top, f) {
  switch (p.kind) {
    case FOUNDATION:
      return rankOf(f) === rankOf(top) + p.step;
    case COLOUR:
      return rankOf(f) === rankOf(top) + 1 && redOf(f) === redOf(top);
    case SUIT_WRAP:
      return rankOf(top) !== 3 && suitOf(f) === suitOf(top) && rankOf(f) === (rankOf(top) % 13) + 1;
    case ALTERNATE:
      return rankOf(f) === rankOf(top) - 1 && redOf(f) !== redOf(top);
    case DOWN:
      return rankOf(top) >= 5 && rankOf(f) === rankOf(top) - 1;
    default:
      return false;
  }
}

// ------------------------------------------------------------------ the deal

function hexToBytes(hex) {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** The stream of 64-bit words of a seed: block k is SHA-256(seed || 0x00 || k as 8 bytes, big-endian). */
function* randomWords(seed) {
  const prefix = new TextEncoder().encode(seed);
  const msg = new Uint8Array(prefix.length + 9);
  msg.set(prefix);
  for (let k = 0n; ; k++) {
    new DataView(msg.buffer).setBigUint64(prefix.length + 1, k);
    const block = hexToBytes(sha256Fallback(msg));
    const dv = new DataView(block.buffer);
    for (let i = 0; i < 32; i += 8) yield dv.getBigUint64(i);
  }
}

const TWO64 = 1n << 64n;

function uniform(words, m) {
  const big = BigInt(m);
  const limit = (TWO64 / big) * big; // rejection sampling: no modulo bias
  for (;;) {
    const w = words.next().value;
    if (w < limit) return Number(w % big);
  }
}

/** Fisher–Yates from the last index down to 1. */
export function shuffle(items, seed) {
  const out = items.slice();
  const words = randomWords(seed);
  for (let i = out.length - 1; i > 0; i--) {
    const j = uniform(words, i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

// ------------------------------------------------------------------ a game

export class Game {
  /** piles: arrays of faces, bottom first; down: face-down count per pile. */
  constructor(id, piles, down) {
    this.def = gameDef(id);
    this.id = id;
    this.piles = piles;
    this.down = down || piles.map(() => 0);
  }

  get total() {
    return this.def.total;
  }

  get home() {
    return this.def.foundIdx.reduce((a, i) => a + this.piles[i].length, 0);
  }

  get won() {
    return this.home === this.def.total;
  }

  copy() {
    return new Game(this.id, this.piles.map((p) => p.slice()), this.down.slice());
  }

  /** The player's view text: face-down cards as ??, the stock as s:#N. */
  viewText() {
    const parts = [this.id];
    this.piles.forEach((p, i) => {
      const name = this.def.names[i];
      if (i === this.def.stockIdx) parts.push(`s:#${p.length}`);
      else parts.push(`${name}:${"??".repeat(this.down[i])}${p.slice(this.down[i]).map(codeOf).join("")}`);
    });
    return parts.join(" ");
  }

  accepts(d, f) {
    const p = this.piles[d];
    const pd = this.def.piles[d];
    if (p.length) return takesOn(pd, p[p.length - 1], f);
    switch (pd.kind) {
      case FOUNDATION:
        return rankOf(f) === pd.start;
      case SUIT_WRAP:
        return rankOf(f) === 4;
      case ALTERNATE:
        return rankOf(f) === 13;
      case SINGLE:
      case DOWN:
        return true;
      case COLOUR: {
        // the pair rule: the two piles of a pair start with aces of different colours
        if (rankOf(f) !== 1) return false;
        const other = this.piles[this.def.index[pd.partner]];
        if (!other.length) return true;
        return rankOf(other[0]) === 1 && redOf(other[0]) !== redOf(f);
      }
      default:
        return false;
    }
  }

  /** null if moving the top k cards of pile s onto pile d is legal, else why not. */
  refusal(s, k, d) {
    const g = this.def;
    const sp = this.piles[s];
    const n = sp.length;
    if (!g.gives[s] || n - this.down[s] < k || k < 1) return "not-available";
    if (k > 1) {
      if (!g.runs[s]) return "not-available";
      for (let i = n - k; i < n - 1; i++) if (!takesOn(g.piles[s], sp[i], sp[i + 1])) return "not-available";
    }
    if (g.kinds[d] === SEQUENCE) return k === 13 && g.tab[s] && !this.piles[d].length ? null : "not-accepted";
    if (!g.receives[d]) return "not-accepted";
    if (g.found[d] && (k > 1 || !g.homeOk[s])) return "not-accepted";
    return this.accepts(d, sp[n - k]) ? null : "not-accepted";
  }

  parse(move) {
    if (move === "draw") return "draw";
    // The server's notation exactly: a count only from 2, with no leading zero.
    const m = /^([a-z]+\d*)(?::([1-9]\d*))?>([a-z]+\d*)$/.exec(move);
    if (!m || m[2] === "1") return null;
    const s = this.def.index[m[1]];
    const d = this.def.index[m[3]];
    if (s === undefined || d === undefined || s === d) return null;
    return [s, m[2] ? parseInt(m[2], 10) : 1, d];
  }

  /** Every legal move once, in the server's notation. */
  legalMoves() {
    const g = this.def;
    const out = [];
    if (this.piles[g.stockIdx].length) out.push("draw");
    this.piles.forEach((sp, s) => {
      if (!sp.length || !g.gives[s]) return;
      const maxK = g.runs[s] ? sp.length - this.down[s] : 1;
      for (let k = 1; k <= maxK; k++) {
        if (k > 1 && !takesOn(g.piles[s], sp[sp.length - k], sp[sp.length - k + 1])) break; // not a run any more
        for (let d = 0; d < this.piles.length; d++) {
          if (d !== s && this.refusal(s, k, d) === null) out.push(k === 1 ? `${g.names[s]}>${g.names[d]}` : `${g.names[s]}:${k}>${g.names[d]}`);
        }
      }
    });
    return out;
  }

  /** Play a legal move in place; returns the cards it revealed as [pile, code]; throws if illegal. */
  play(move) {
    const g = this.def;
    const parsed = this.parse(move);
    if (parsed === null) throw new Error(`not a move of ${this.id}: ${move}`);
    const stock = this.piles[g.stockIdx];
    if (parsed === "draw") {
      if (!stock.length) throw new Error("the stock is empty");
      if (g.drawToTableau) {
        const revealed = [];
        for (const t of g.tabIdx) {
          if (!stock.length) break;
          const f = stock.pop();
          this.piles[t].push(f);
          revealed.push([g.names[t], codeOf(f)]);
        }
        return revealed;
      }
      const f = stock.pop();
      this.piles[g.wasteIdx].push(f);
      return [["w", codeOf(f)]];
    }
    const [s, k, d] = parsed;
    const why = this.refusal(s, k, d);
    if (why) throw new Error(`${move}: ${why}`);
    const sp = this.piles[s];
    this.piles[d].push(...sp.splice(sp.length - k, k));
    if (sp.length) {
      if (this.down[s] && this.down[s] === sp.length) {
        this.down[s] -= 1;
        return [[g.names[s], codeOf(sp[sp.length - 1])]];
      }
    } else if (g.refill && g.tab[s] && stock.length) {
      sp.push(stock.pop());
      return [[g.names[s], codeOf(sp[0])]];
    }
    return [];
  }
}

/** A new game dealt from a seed, exactly as the server deals it. */
export function deal(id, seed) {
  const g = gameDef(id);
  const piles = g.piles.map(() => []);
  const down = g.piles.map(() => 0);
  let deck = Array.from({ length: g.total }, (_, i) => i);
  if (g.baseRank) {
    const bases = deck.filter((c) => c % 13 === g.baseRank - 1);
    g.foundIdx.forEach((i, n) => piles[i].push(bases[n] % 52));
    deck = deck.filter((c) => c % 13 !== g.baseRank - 1);
  }
  const cards = shuffle(deck, seed);
  let next = 0;
  for (let round = 0; round < (g.reserveRounds || 0); round++) for (const i of g.reserveIdx) piles[i].push(cards[next++] % 52);
  const sizes = g.tableauSizes;
  for (let row = 0; row < Math.max(0, ...sizes); row++) {
    g.tabIdx.forEach((i, n) => {
      if (sizes[n] > row) piles[i].push(cards[next++] % 52);
    });
  }
  if (g.faceDown) g.tabIdx.forEach((i, n) => (down[i] = Math.max(sizes[n] - 1, 0)));
  piles[g.stockIdx] = cards.slice(next).reverse().map((c) => c % 52); // the first card left is the stock's top
  return new Game(id, piles, down);
}

/**
 * A small position for teaching: piles given as {name: "codes"} (the rest
 * empty), face-down cards written ~Kh like a position text, the stock's cards
 * bottom first.
 */
export function position(id, spec) {
  const g = gameDef(id);
  const piles = g.piles.map(() => []);
  const down = g.piles.map(() => 0);
  for (const [name, text] of Object.entries(spec)) {
    const i = g.index[name];
    if (i === undefined) throw new Error(`${id} has no pile ${name}`);
    for (let j = 0; j < text.length; ) {
      if (text[j] === "~") {
        down[i] += 1;
        j += 1;
      }
      piles[i].push(faceOf(text.slice(j, j + 2)));
      j += 2;
    }
  }
  return new Game(id, piles, down);
}
