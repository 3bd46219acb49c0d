// Cards and view texts (docs/rules.md §1.1, §7.3).

export const SUITS = { c: "♣", d: "♦", h: "♥", s: "♠" };
export const SUIT_NAMES = { c: "clubs", d: "diamonds", h: "hearts", s: "spades" };
const RANK_LABEL = { A: "A", T: "10", J: "J", Q: "Q", K: "K" };
const RANK_NAMES = { A: "ace", T: "10", J: "jack", Q: "queen", K: "king" };

export function rankLabel(code) {
  const r = code[0];
  return RANK_LABEL[r] || r;
}
export const isRed = (code) => code[1] === "d" || code[1] === "h";
export const cardName = (code) => `${RANK_NAMES[code[0]] || code[0]} of ${SUIT_NAMES[code[1]]}`;

/**
 * Parse a view text: "game f0: f1:As2h … t0:??Kd s:#67 w:Qc".
 * Returns {game, order: [pile names, stock included], piles: {name: [code|null]}, stock}
 * where null is a card the player may not see (face down).
 */
export function parseView(text) {
  const tokens = String(text || "").trim().split(/\s+/);
  const view = { game: tokens[0] || "", order: [], piles: {}, stock: 0 };
  for (const tok of tokens.slice(1)) {
    const i = tok.indexOf(":");
    if (i < 0) continue;
    const name = tok.slice(0, i);
    const body = tok.slice(i + 1);
    view.order.push(name);
    if (name === "s") {
      view.stock = body.startsWith("#") ? parseInt(body.slice(1), 10) || 0 : body.length / 2;
      continue;
    }
    const cards = [];
    let j = 0;
    while (j < body.length) {
      if (body[j] === "~") {
        cards.push(null);
        j += 3;
      } else if (body.startsWith("??", j)) {
        cards.push(null);
        j += 2;
      } else {
        cards.push(body.slice(j, j + 2));
        j += 2;
      }
    }
    view.piles[name] = cards;
  }
  return view;
}

/** Build the DOM of one card (face up when code is a string, else a back). */
export function cardEl(code) {
  const el = document.createElement("div");
  if (!code) {
    el.className = "card back";
    // face down, or (on a spectator's board) a card a rival has not seen yet; an image, so that
    // a screen reader says it (a label on a plain div is not read)
    el.setAttribute("role", "img");
    el.setAttribute("aria-label", "face-down card");
    return el;
  }
  const red = isRed(code);
  el.className = `card face ${red ? "red" : "black"}`;
  el.dataset.card = code;
  el.setAttribute("role", "img"); // read as its name, not as its corner marks (a playable one is a button: board_keys.js)
  el.setAttribute("aria-label", cardName(code));
  el.title = cardName(code);
  const r = rankLabel(code);
  const s = SUITS[code[1]];
  const face = "JQK".includes(code[0]) ? `<span class="pip court">${code[0]}</span>` : `<span class="pip">${s}</span>`;
  el.innerHTML =
    `<span class="idx tl"><b>${r}</b><i>${s}</i></span>` +
    face +
    `<span class="idx br"><b>${r}</b><i>${s}</i></span>`;
  return el;
}
