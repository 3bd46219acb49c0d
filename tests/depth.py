"""How hard the property tests and fuzzers try: quick by default, ten times more with
`pytest --hypothesis-profile=deep` (the profiles are registered in tests/conftest.py).

A test that sets its own number of examples, or frames, or mutations, passes its
quick count through `examples`, so that the deep profile scales it too.
"""

from __future__ import annotations

from hypothesis import settings

#: max_examples of the default profile (hypothesis' own default); the deep profile's is ten times it.
QUICK = 100
DEEP = 10 * QUICK


def examples(quick: int) -> int:
    """`quick` in the default run, scaled by the active profile (deep: ten times)."""
    profile = settings.default
    assert profile is not None  # hypothesis loads its default profile on import
    return max(1, quick * profile.max_examples // QUICK)
