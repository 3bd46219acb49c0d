"""The browser client's modules (client/web/static/js) import each other in one direction: no
module imports, through others, one that imports it. race_page.js, race_play.js and race_sync.js
did (the page imports the board's and the sync's functions, and they imported its redraw): a
module in such a circle can run before one it needs has defined its exports, and which one comes
first depends on which the page loads first. They now redraw the race page through state.js."""

from __future__ import annotations

import re
from pathlib import Path

JS = Path(__file__).resolve().parents[2] / "client/web/static/js"

# `import {a, b} from "./x.js"` (over several lines too), `import * as x from`, `import "./x.js"`,
# `export {a} from "./x.js"`: what a module loads before it runs
STATIC_IMPORT = re.compile(r"""^\s*(?:import|export)\b[^;"']*?["'](\./[^"']+)["']""", re.M)


def imports() -> dict[str, set[str]]:
    """Each module's name -> the names of the modules of this folder it imports."""
    return {
        f.name: {m.group(1)[2:] for m in STATIC_IMPORT.finditer(f.read_text())}
        for f in sorted(JS.glob("*.js"))
    }


def a_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A path of imports that comes back to where it started (its first module last again), if any."""
    done: set[str] = set()
    path: list[str] = []

    def visit(name: str) -> list[str] | None:
        if name in path:
            return path[path.index(name) :] + [name]
        if name in done:
            return None
        path.append(name)
        for other in sorted(graph.get(name, ())):
            found = visit(other)
            if found:
                return found
        path.pop()
        done.add(name)
        return None

    for name in sorted(graph):
        found = visit(name)
        if found:
            return found
    return None


def test_what_the_modules_import_is_read() -> None:
    graph = imports()
    assert {"race_play.js", "race_sync.js", "state.js"} <= graph["race_page.js"]
    assert "dom.js" in graph["race_play.js"]  # imported over several lines or one
    for name, imported in graph.items():
        assert imported <= graph.keys(), (name, imported - graph.keys())


def test_no_module_imports_one_that_imports_it() -> None:
    assert a_cycle(imports()) is None, " -> ".join(a_cycle(imports()) or [])


def test_a_cycle_is_found() -> None:
    assert a_cycle({"a.js": {"b.js"}, "b.js": {"c.js"}, "c.js": {"a.js"}}) == ["a.js", "b.js", "c.js", "a.js"]
    assert a_cycle({"a.js": {"b.js", "c.js"}, "b.js": {"c.js"}, "c.js": set()}) is None
