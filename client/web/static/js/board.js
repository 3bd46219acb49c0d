// Draws one player's board from a view text and turns clicks and drags into
// moves in docs/rules.md §1.3 notation, offering only the moves the server listed
// as legal (`legal` from an ack or a resync).
import { GAMES } from "./games.js";
import { parseView, cardEl } from "./cards.js";

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
    // What the last two taps or clicks hit (null for a drag): a double-click acts only when both
    // were on its card. The browser pairs two quick taps a few px apart even on different piles (a
    // destination, then the next card where it was): the second, a plain select, then played a move.
    this.taps = [null, null];
    this.marks = new Map(); // pile -> class, e.g. the last move's piles in a replay
    this.root.classList.add("board");
    if (this.opts.interactive) {
      this.root.classList.add("interactive-board");
      this.bindPointer();
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
    const cw = this.cardWidth();
    const ch = Math.round(cw * 1.4);
    this.cw = cw;
    this.ch = ch;
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
          label.textContent = group.label;
          gEl.appendChild(label);
          const piles = document.createElement("div");
          piles.className = "piles";
          piles.style.gap = `${Math.round(cw * sp.gap)}px`;
          for (const name of group.piles) piles.appendChild(this.pileEl(name, group, game, targets));
          gEl.appendChild(piles);
          rowEl.appendChild(gEl);
        }
        colEl.appendChild(rowEl);
      }
      frag.appendChild(colEl);
    }
    this.root.replaceChildren(frag);
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
      const expectH = ch + Math.max(0, (group.expect || 1) - 1) * 0.36 * cw;
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

  // ---- interaction -------------------------------------------------------

  bindPointer() {
    // Touch: the board has touch-action: none (no page pan under a finger) and
    // captures the pointer, so a drag keeps its events wherever the finger goes;
    // a cancelled pointer (the browser took the gesture) drops the drag cleanly.
    this.root.addEventListener("pointerdown", (e) => this.onDown(e));
    this.root.addEventListener("pointermove", (e) => this.onMoveEv(e));
    this.root.addEventListener("pointerup", (e) => this.onUp(e));
    this.root.addEventListener("pointercancel", (e) => this.onCancel(e));
    this.root.addEventListener("lostpointercapture", (e) => this.onCancel(e));
    this.root.addEventListener("dblclick", (e) => this.onDbl(e));
  }

  hit(target) {
    const pileEl = target && target.closest ? target.closest(".pile") : null;
    if (!pileEl || !this.root.contains(pileEl)) return null;
    const cardE = target.closest(".card");
    const idx = cardE && cardE.dataset.idx !== undefined ? parseInt(cardE.dataset.idx, 10) : null;
    return { pile: pileEl.dataset.pile, idx, pileEl, cardE };
  }

  onDown(e) {
    if (e.button !== 0 || !e.isPrimary) return;
    if (this.drag) this.dropDrag();
    const h = this.hit(e.target);
    this.drag = { id: e.pointerId, x: e.clientX, y: e.clientY, h, moved: false, ghost: null };
    try {
      this.root.setPointerCapture(e.pointerId);
    } catch (err) {
      /* a synthetic pointer without a capture target */
    }
  }

  /** Forget a drag in progress: no ghost left on screen, no selection. */
  dropDrag() {
    const d = this.drag;
    this.drag = null;
    if (!d) return;
    if (d.ghost) d.ghost.remove();
    if (d.moved) {
      this.sel = null;
      this.render();
    }
  }

  onCancel(e) {
    if (!this.drag || this.drag.id !== e.pointerId) return;
    // lostpointercapture also follows a normal pointerup, which has already ended the drag
    this.dropDrag();
  }

  onMoveEv(e) {
    const d = this.drag;
    if (!d || d.id !== e.pointerId || !d.h || d.h.idx === null) return;
    if (!d.moved) {
      if (Math.hypot(e.clientX - d.x, e.clientY - d.y) < 6) return;
      const len = (this.view.piles[d.h.pile] || []).length;
      const k = len - d.h.idx;
      if (!this.movesFrom(d.h.pile, k).length) return;
      d.moved = true;
      this.sel = { pile: d.h.pile, k };
      this.render();
      d.ghost = this.makeGhost(d.h.pile, d.h.idx);
      const r = this.root.querySelector(`.pile[data-pile="${d.h.pile}"] .card[data-idx="${d.h.idx}"]`);
      const box = r ? r.getBoundingClientRect() : { left: e.clientX, top: e.clientY };
      d.dx = e.clientX - box.left;
      d.dy = e.clientY - box.top;
    }
    if (d.ghost) {
      d.ghost.style.left = `${e.clientX - d.dx}px`;
      d.ghost.style.top = `${e.clientY - d.dy}px`;
    }
  }

  makeGhost(pile, idx) {
    const ghost = document.createElement("div");
    ghost.className = "drag-ghost";
    ghost.style.setProperty("--cw", `${this.cw}px`);
    ghost.style.setProperty("--ch", `${this.ch}px`);
    const cards = this.view.piles[pile].slice(idx);
    cards.forEach((code, i) => {
      const c = cardEl(code);
      c.style.top = `${Math.round(i * 0.36 * this.cw)}px`;
      ghost.appendChild(c);
    });
    document.body.appendChild(ghost);
    this.root.querySelectorAll(`.pile[data-pile="${pile}"] .selected`).forEach((c) => c.classList.add("lifted"));
    return ghost;
  }

  onUp(e) {
    const d = this.drag;
    if (!d || d.id !== e.pointerId) return;
    this.drag = null;
    this.taps = [this.taps[1], d.moved || !d.h ? null : { pile: d.h.pile, idx: d.h.idx }];
    if (d.moved) {
      if (d.ghost) d.ghost.remove();
      const under = document.elementFromPoint(e.clientX, e.clientY);
      const h = this.hit(under);
      const targets = this.targets();
      if (h && targets.has(h.pile)) {
        this.play(targets.get(h.pile));
      } else {
        this.sel = null;
        this.render();
      }
      return;
    }
    if (!d.h) return;
    this.click(d.h);
  }

  click(h) {
    if (this.busy) return;
    const targets = this.targets();
    if (this.sel && targets.has(h.pile)) {
      this.play(targets.get(h.pile));
      return;
    }
    if (h.pile === "s") {
      this.sel = null;
      if (this.legal.draw) this.play("draw");
      else this.render();
      return;
    }
    if (h.idx !== null && h.idx !== undefined) {
      const len = (this.view.piles[h.pile] || []).length;
      const k = len - h.idx;
      if (this.sel && this.sel.pile === h.pile && this.sel.k === k) {
        this.sel = null;
        this.render();
        return;
      }
      if (this.movesFrom(h.pile, k).length) {
        this.sel = { pile: h.pile, k };
        this.render();
        return;
      }
      if (h.cardE) {
        h.cardE.classList.remove("nope");
        void h.cardE.offsetWidth;
        h.cardE.classList.add("nope");
      }
    }
    if (this.sel) {
      this.sel = null;
      this.render();
    }
  }

  onDbl(e) {
    // with the pointer captured, the event's target is the board itself
    const h = this.hit(document.elementFromPoint(e.clientX, e.clientY));
    if (!h || h.idx === null || h.pile === "s" || this.busy) return;
    // both clicks on this card: not a tap elsewhere, then one here that only selects
    if (!this.taps.every((t) => t && t.pile === h.pile && t.idx === h.idx)) return;
    const len = (this.view.piles[h.pile] || []).length;
    const moves = this.movesFrom(h.pile, len - h.idx);
    // send home first: the first foundation that takes it
    const home = moves.find((m) => m.dst[0] === "f" && m.dst !== h.pile);
    const pick = home || (moves.length === 1 ? moves[0] : null);
    if (pick) this.play(pick.move);
  }

  async play(move) {
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
