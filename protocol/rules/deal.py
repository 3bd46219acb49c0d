"""The portable seeded shuffle (docs/rules.md §8, deal algorithm version 1).

Everything here is specified bit for bit so that any implementation, in any
language, deals the same layout from the same seed; that is what lets anyone
verify a finished race from the published seed and move logs. Never change
this code without bumping ``DEAL_VERSION``.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterator
from typing import TypeVar

DEAL_VERSION = 1

T = TypeVar("T")

_TWO64 = 1 << 64


def random_words(seed: str) -> Iterator[int]:
    """The endless stream of 64-bit words derived from ``seed``.

    Block k is SHA-256(seed UTF-8 || 0x00 || k as 8-byte big-endian); each
    block yields its four big-endian 64-bit words in order.
    """
    prefix = seed.encode("utf-8") + b"\0"
    k = 0
    while True:
        block = hashlib.sha256(prefix + k.to_bytes(8, "big")).digest()
        for i in range(0, 32, 8):
            yield int.from_bytes(block[i : i + 8], "big")
        k += 1


def uniform(words: Iterator[int], m: int) -> int:
    """A uniform integer in ``[0, m)`` by rejection sampling (no modulo bias)."""
    limit = (_TWO64 // m) * m
    while True:
        w = next(words)
        if w < limit:
            return w % m


def shuffle(items: list[T], seed: str) -> list[T]:
    """Fisher–Yates from the last index down to 1; returns a new list."""
    out = list(items)
    words = random_words(seed)
    for i in range(len(out) - 1, 0, -1):
        j = uniform(words, i + 1)
        out[i], out[j] = out[j], out[i]
    return out


def random_seed() -> str:
    """A fresh seed: 32 lowercase hex characters from a cryptographic source."""
    return secrets.token_hex(16)


def seed_commitment(seed: str) -> str:
    """sha256(seed UTF-8) in hex: published at a race's start, checked at its end."""
    return hashlib.sha256(seed.encode("utf-8")).hexdigest()
