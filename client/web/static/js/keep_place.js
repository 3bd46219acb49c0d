// A page drawn again from scratch (the lobby: at the welcome, when the daily probe answers, at a
// reconnect) must not take from the player what they were doing: the focus (a keyboard or
// screen-reader user's place: it fell back to the page's body) and the text they were typing
// into a box nobody else fills. Each is found again in the new drawing by what it is (its
// tile's game, its form, its act, name or id, a button's words), not by its position: the
// new drawing may have more controls before it (the tiles' "Daily" links once the probe answers).

/** The focused control inside `root` (null if none) and the text of its text boxes. */
export function placeIn(root) {
  const a = document.activeElement;
  const focused = a && a !== document.body && root.contains(a) ? a : null;
  const typed = [...root.querySelectorAll("input[type=text], input:not([type]), input[type=search], textarea")]
    .filter((box) => box.value)
    .map((box) => ({ key: keyOf(box), value: box.value }));
  const selection = focused && "selectionStart" in focused && typed.length ? [focused.selectionStart, focused.selectionEnd] : null;
  return { focused: focused ? keyOf(focused) : null, typed, selection };
}

/** `place` (placeIn) given back in `root`, drawn again: the texts typed, then the focus, without scrolling. */
export function restorePlace(root, place) {
  for (const { key, value } of place.typed) {
    const box = find(root, key);
    if (box && !box.value) box.value = value;
  }
  if (!place.focused) return;
  const el = find(root, place.focused);
  if (!el || document.activeElement === el) return;
  el.focus({ preventScroll: true });
  if (place.selection && "setSelectionRange" in el) {
    try {
      el.setSelectionRange(...place.selection);
    } catch {
      // (a box whose type has no selection)
    }
  }
}

function keyOf(el) {
  const tile = el.closest("[data-game]");
  const form = el.closest("form");
  return {
    tag: el.tagName,
    game: tile ? tile.dataset.game : null,
    form: form ? form.getAttribute("class") : null,
    act: el.dataset.act || null,
    name: el.getAttribute("name"),
    id: el.id || null,
    words: el.tagName === "BUTTON" || el.tagName === "A" ? el.textContent.trim() : null,
  };
}

function find(root, key) {
  if (key.id) return root.querySelector(`#${CSS.escape(key.id)}`);
  return [...root.querySelectorAll(key.tag)].find((el) => {
    const k = keyOf(el);
    return k.game === key.game && k.form === key.form && k.act === key.act && k.name === key.name && k.words === key.words;
  }) || null;
}
