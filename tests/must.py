"""Narrowing for the tests: a value a test expects to be there, or a failure naming what was missing.

`must(x)` is `x` when it is not None, else an `AssertionError`: the test fails where the
missing value is first used, and mypy (which checks the tests' bodies) knows the type is set.
`must_be(x, cls)` does the same for a union (a decoded server message, a matched widget).
"""

from __future__ import annotations

from typing import TypeVar

T = TypeVar("T")


def must(value: T | None, what: str = "value") -> T:
    """`value`, which the test needs set; an `AssertionError` naming `what` if it is None."""
    assert value is not None, f"{what}: expected a value, got None"
    return value


def must_be(value: object, cls: type[T]) -> T:
    """`value` as a `cls`; an `AssertionError` showing the value if it is something else."""
    assert isinstance(value, cls), f"expected a {cls.__name__}, got {value!r}"
    return value
