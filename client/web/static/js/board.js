// Draws one player's board from a view text (its piles and cards, sized to fit the width) and holds
// what a move needs: the moves the server listed as legal (`legal` from an ack or a resync, in
// docs/rules.md §1.3 notation), the selection, the move played. An interactive board's input is
// mixed into the class from board_pointer.js (clicks, taps, drags) and board_keys.js (the keys).
import { GAMES } from "./games.js";
import { parseView, cardEl } from "./cards.js";
import { keyInput } from "./board_keys.js";
import { pointerInput } from "./board_pointer.js";
import { boardPileText, countText, groupLabelText } from "./words.js";

// Gaps in card widths: between piles of a group, between groups; narrower
// ones when the board would not fit the width otherwise (phones).
const WIDE = { gap: 0.16, group: 0.55 };
const NARROW = { gap: 0.07, group: 0.3 };

/** Parse the legal list into {draw, from: Map("src:k" -> [{dst, move}])}. */
export function indexLegal(legal) {
  const idx = { draw: false, from: new Map() };
  for (const m of legal || []) {
    if (m === "draw") {
      idx.draw = true;
      continue;
    }
    const g = /^([a-z]+\d*)(?::(\d+))?>([a-z]+\d*)$/.exec(m);
    if (!g) continue;
    const key = `${g[1]}:${g[2] ? parseInt(g[2], 10) : 1}`;
    if (!idx.from.has(key)) idx.from.set(key, []);
    idx.from.get(key).push({ dst: g[3], move: m });
  }
  return idx;
}

/** A Board's `marks` for one move: its source and destination piles as `${kind}-from` and
 *  `${kind}-to` (a draw marks the stock); none for no move. */
export function moveMarks(move, kind) {
  if (!move) return new Map();
  const m = /^([a-z]+\d*)(?::\d+)?>([a-z]+\d*)$/.exec(move);
  return new Map(m ? [[m[1], `${kind}-from`], [m[2], `${kind}-to`]] : [["s", `${kind}-from`]]);
}

const groupUnits = (g, sp) => g.piles.length + (g.piles.length - 1) * sp.gap;

/** Card widths a row needs; with `wrap`, groups go on lines of their own. */
function rowUnits(row, sp, wrap) {
  if (wrap) return Math.max(...row.map((g) => groupUnits(g, sp)));
  return row.reduce((w, g, i) => w + groupUnits(g, sp) + (i ? sp.group : 0), 0);
}

/** Card widths needed across: columns side by side, or stacked when `stacked`. */
function layoutUnits(game, sp, stacked, wrap) {
  const widths = game.cols.map((col) => Math.max(...col.map((row) => rowUnits(row, sp, wrap))));
  if (stacked) return Math.max(...widths) + 0.3;
  return widths.reduce((a, w, i) => a + w + (i ? sp.group : 0), 0) + 0.3;
}

export class Board {
  /**
   * root: element to draw into. opts: {interactive, onMove(move) -> Promise,
   * minCard, maxCard, maxHeight (px, for the tallest column, optional)}
   */
  constructor(root, opts = {}) {
    this.root = root;
    this.opts = { interactive: false, minCard: 30, maxCard: 96, ...opts };
    this.view = null;
    this.legal = indexLegal([]);
    this.sel = null; // {pile, k}
    this.busy = false;
    this.drag = null;
    // The last two taps or clicks, {pile, idx, at} (null for a drag, and forgotten once one plays
    // a move): a double-click is two of them on one card. The board pairs them itself: with a mouse,
    // Chromium sends no dblclick (nor click) at all, as the first click redraws the board and the
    // element it pressed is gone; and with a finger the browser pairs two quick taps a few px apart
    // even on different piles (a destination, then the next card where it was), which must not count.
    this.taps = [null, null];
    this.marks = new Map(); // pile -> class, e.g. the last move's piles in a replay
    // Room kept under a fanned pile for the cards it is expected to hold (group.expect), so the
    // board does not grow under the player as they play; a game over (the race page's result)
    // sets it false: a phone's short board otherwise left an empty gap above what follows it.
    this.room = true;
    this.root.classList.add("board");
    if (this.opts.interactive) {
      this.root.classList.add("interactive-board");
      this.bindPointer();
      this.bindKeys();
    }
    this.resizeObs = new ResizeObserver(() => {
      const w = this.root.clientWidth;
      if (w && w !== this.lastWidth) this.render();
    });
    this.resizeObs.observe(this.root);
  }

  destroy() {
    this.resizeObs.disconnect();
    this.root.innerHTML = "";
  }

  set(viewText, legal) {
    this.view = parseView(viewText);
    if (legal !== undefined) this.legal = indexLegal(legal);
    if (this.sel && !this.movesFrom(this.sel.pile, this.sel.k).length) this.sel = null;
    this.render();
  }

  setLegal(legal) {
    this.legal = indexLegal(legal);
    this.render();
  }

  movesFrom(pile, k) {
    return this.legal.from.get(`${pile}:${k}`) || [];
  }

  targets() {
    if (!this.sel) return new Map();
    return new Map(this.movesFrom(this.sel.pile, this.sel.k).map((m) => [m.dst, m.move]));
  }

  /**
   * The card width that fits the board's width: the layout's columns side by
   * side, else stacked, else with narrower gaps, else with each row's groups
   * wrapped. Never wider than the board: a phone must not scroll sideways.
   */
  cardWidth() {
    const game = GAMES[this.view.game];
    const width = this.root.clientWidth || 800;
    const tries = [
      [WIDE, false, false],
      [WIDE, true, false],
      [NARROW, true, false],
      [NARROW, true, true],
    ];
    const options = tries.map(([sp, stacked, wrap]) => ({ sp, stacked, wrap, cw: Math.floor(width / layoutUnits(game, sp, stacked, wrap)) }));
    // the most compact layout whose cards are comfortable, else whose cards are readable
    // (wrapping groups makes a tall board), else the widest cards there are
    const compact = options.filter((o) => !o.wrap);
    const pick =
      compact.find((o) => o.cw >= 44) ||
      compact.find((o) => o.cw >= this.opts.minCard) ||
      options[options.length - 1];
    this.stacked = pick.stacked && game.cols.length > 1;
    this.wrap = pick.wrap;
    this.sp = pick.sp;
    const fits = pick.cw;
    return Math.max(Math.min(this.opts.minCard, fits), Math.min(this.opts.maxCard, fits));
  }

  render() {
    if (!this.view) return;
    const game = GAMES[this.view.game];
    if (!game) {
      this.root.textContent = `Unknown game ${this.view.game}`;
      return;
    }
    this.lastWidth = this.root.clientWidth;
    // the elements are all replaced below: where the keyboard focus was, to put it back
    const focus = this.opts.interactive ? this.focusedPlace() : null;
    const cw = this.cardWidth();
    const ch = Math.round(cw * 1.4);
    this.cw = cw;
    this.ch = ch;
    // under 30 px (a replay's or a spectator's board on a phone) the labels are not upper case:
    // "WASTE" and "STOCK" were cut ("WAS…") above their one card, "Waste" fits
    this.root.classList.toggle("small-cards", cw < 30);
    this.root.style.setProperty("--cw", `${cw}px`);
    this.root.style.setProperty("--ch", `${ch}px`);
    const sp = this.sp;
    this.root.style.gap = `${Math.round(cw * sp.group)}px`;
    this.root.dataset.game = this.view.game;
    this.root.classList.toggle("stacked", this.stacked);
    this.root.classList.toggle("wrap", this.wrap);
    const targets = this.targets();
    const frag = document.createDocumentFragment();
    for (const col of game.cols) {
      const colEl = document.createElement("div");
      colEl.className = "col";
      for (const row of col) {
        const rowEl = document.createElement("div");
        rowEl.className = "row";
        rowEl.style.gap = `${Math.round(cw * 0.22)}px ${Math.round(cw * sp.group)}px`;
        for (const group of row) {
          const gEl = document.createElement("div");
          gEl.className = `group fan-${group.fan}`;
          const label = document.createElement("div");
          label.className = "glabel";
          label.textContent = groupLabelText(group);
          gEl.appendChild(label);
          const piles = document.createElement("div");
          piles.className = "piles";
          piles.style.gap = `${Math.round(cw * sp.gap)}px`;
          for (const name of group.piles) {
            const pileEl = this.pileEl(name, group, game, targets);
            if (this.opts.interactive) this.tabStops(pileEl, name, targets);
            else this.pileLabel(pileEl, name);
            piles.appendChild(pileEl);
          }
          gEl.appendChild(piles);
          rowEl.appendChild(gEl);
        }
        colEl.appendChild(rowEl);
      }
      frag.appendChild(colEl);
    }
    this.root.replaceChildren(frag);
    if (focus) this.restoreFocus(focus);
  }

  /** A read-only board (a rival's, a replay's): each pile a labelled group, so that a screen
   *  reader says which pile the cards it reads lie in, and how many it holds face down. */
  pileLabel(pileEl, name) {
    const n = name === "s" ? this.view.stock : (this.view.piles[name] || []).length;
    const backs = name === "s" ? 0 : pileEl.querySelectorAll(".card.back").length;
    pileEl.setAttribute("role", "group");
    pileEl.setAttribute("aria-label", `${boardPileText(this.view.game, name)}, ${n ? countText(n, "card") : "empty"}${backs ? `, ${backs} face down` : ""}`);
  }

  pileEl(name, group, game, targets) {
    const { cw, ch } = this;
    const el = document.createElement("div");
    el.className = "pile";
    el.dataset.pile = name;
    el.style.width = `${cw}px`;
    if (this.marks.has(name)) el.classList.add(this.marks.get(name));
    if (targets.has(name)) el.classList.add("target");
    if (name === "s") {
      const n = this.view.stock;
      el.style.height = `${ch}px`;
      el.classList.add("stock");
      if (n > 0) {
        const back = cardEl(null);
        back.classList.add("stock-card");
        el.appendChild(back);
      } else {
        el.appendChild(this.slot("∅"));
      }
      const count = document.createElement("div");
      count.className = "count stock-count";
      count.textContent = n;
      el.appendChild(count);
      if (this.legal.draw && this.opts.interactive) el.classList.add("can-draw");
      el.title = `Stock: ${n} card${n === 1 ? "" : "s"}${this.legal.draw ? " — click to draw" : ""}`;
      return el;
    }
    const cards = this.view.piles[name] || [];
    const len = cards.length;
    const selFrom = this.sel && this.sel.pile === name ? len - this.sel.k : -1;
    if (group.fan === "down") {
      // face-down cards peek less than face-up ones; squeeze tall columns
      let up = 0.36 * cw;
      let down = 0.16 * cw;
      const maxH = Math.max(3 * ch, this.opts.maxColumnPx || window.innerHeight * 0.6);
      let h = ch;
      for (let i = 0; i < len - 1; i++) h += cards[i] ? up : down;
      if (h > maxH) {
        const f = (maxH - ch) / (h - ch);
        up *= f;
        down *= f;
        h = maxH;
      }
      const expectH = this.room ? ch + Math.max(0, (group.expect || 1) - 1) * 0.36 * cw : ch;
      el.style.height = `${Math.ceil(Math.max(h, Math.min(expectH, maxH)))}px`;
      if (!len) el.appendChild(this.slot(game.hints[name] || ""));
      let y = 0;
      cards.forEach((code, i) => {
        const c = cardEl(code);
        c.style.top = `${Math.round(y)}px`;
        c.style.zIndex = i + 1;
        c.dataset.idx = i;
        if (code && this.opts.interactive && this.movesFrom(name, len - i).length) c.classList.add("can");
        if (selFrom >= 0 && i >= selFrom) c.classList.add("selected");
        el.appendChild(c);
        y += code ? up : down;
      });
      return el;
    }
    // top-only piles: foundations and waste
    el.style.height = `${ch}px`;
    if (!len) {
      el.appendChild(this.slot(group.fan === "waste" ? "" : game.hints[name] || ""));
    } else {
      if (len > 1) {
        const under = cardEl(cards[len - 2]);
        under.classList.add("under");
        el.appendChild(under);
      }
      const top = cardEl(cards[len - 1]);
      top.dataset.idx = len - 1;
      if (this.opts.interactive && this.movesFrom(name, 1).length) top.classList.add("can");
      if (selFrom >= 0) top.classList.add("selected");
      el.appendChild(top);
    }
    if (len > 1 || group.fan === "waste") {
      const count = document.createElement("div");
      count.className = "count";
      count.textContent = len;
      el.appendChild(count);
    }
    return el;
  }

  slot(text) {
    const s = document.createElement("div");
    s.className = "slot";
    s.textContent = text;
    return s;
  }

  /** Play one move (a click, a drop, a key, the race page's draw): `onMove` sends it. */
  async play(move) {
    // a click that plays a move is never the first of a double-click
    this.taps = [null, null];
    this.sel = null;
    this.render();
    if (!this.opts.onMove) return;
    this.busy = true;
    this.root.classList.add("busy");
    try {
      await this.opts.onMove(move);
    } finally {
      this.busy = false;
      this.root.classList.remove("busy");
    }
  }
}

Object.assign(Board.prototype, pointerInput, keyInput);
