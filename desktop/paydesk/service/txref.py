"""Merchant transaction references that people can read aloud and type back.

Format: ``PREFIX-YYMMDD-INSTAL-SEQCC``, e.g. ``SHOP-261122-K7QM4X-0042R9``:
a merchant prefix, the date, a per-installation part (random, drawn once per
installation: unique across installations without coordination), a per-day
sequence, and two check characters.

The check characters are ISO 7064 MOD 1271,36 over every letter and digit of the
reference: they catch any single mistyped character and any two swapped
neighbours, check characters included. (A single check character from the same
36 letters and digits cannot catch every swap; MOD 37,36 misses some.)
"""

from __future__ import annotations

import re
import secrets
import threading
from collections.abc import Callable
from datetime import UTC, date, datetime

from .words import N_

ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_VALUE = {ch: i for i, ch in enumerate(ALPHABET)}
# the per-installation part avoids letters read or typed as others (I L O U)
INSTALLATION_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
_SHAPE = re.compile(r"([A-Z0-9]{1,8})-([0-9]{6})-([A-Z0-9]{6})-([0-9]{4,})([A-Z0-9]{2})")
_PREFIX = re.compile(r"[A-Z0-9]{1,8}")


_MODULUS, _RADIX = 1271, 36


def _fold(text: str) -> int:
    total = 0
    for ch in text.upper():
        if ch in _VALUE:
            total = (total * _RADIX + _VALUE[ch]) % _MODULUS
    return total


def check_characters(payload: str) -> str:
    """The two ISO 7064 MOD 1271,36 check characters of the letters and digits of ``payload``."""
    shifted = (_fold(payload) * _RADIX * _RADIX) % _MODULUS
    value = (1 - shifted) % _MODULUS
    return ALPHABET[value // _RADIX] + ALPHABET[value % _RADIX]


def is_consistent(reference: str) -> bool:
    """True when the reference, check characters included, folds to 1 (mod 1271)."""
    letters = [ch for ch in reference.upper() if ch in _VALUE]
    return len(letters) >= 3 and _fold(reference) == 1


NOT_CHECKING_OUT = N_("This reference does not check out (a typing mistake): check each character")


def corrections(reference: str) -> list[tuple[str, str]]:
    """Every single change that makes ``reference`` check out: one character typed for
    another (``("typed", candidate)``) or two neighbours swapped (``("swapped", …)``),
    hyphens kept where they are. Several may: the check characters catch a mistake, they
    cannot always say which it was."""
    ref = reference.upper()
    found: list[tuple[str, str]] = []
    for i, ch in enumerate(ref):
        if ch not in _VALUE:
            continue
        for other in ALPHABET:
            if other != ch:
                candidate = ref[:i] + other + ref[i + 1 :]
                if is_consistent(candidate):
                    found.append(("typed", candidate))
        following = ref[i + 1 : i + 2]
        if following in _VALUE and following != ch:
            candidate = ref[:i] + following + ch + ref[i + 2 :]
            if is_consistent(candidate):
                found.append(("swapped", candidate))
    return found


def new_installation_id() -> str:
    """Six characters, 30 random bits: drawn once and kept by the installation."""
    return "".join(secrets.choice(INSTALLATION_ALPHABET) for _ in range(6))


def normalise(typed: str) -> str:
    """What a person typed at a lookup box, as a reference: upper case, no spaces."""
    return re.sub(r"\s+", "", typed).upper()


class TxRefError(ValueError):
    """What is wrong with a reference or its prefix, in one English sentence (marked for the
    catalogue; the layer that shows it says it in the reader's language: ``_(str(error))``)."""


def validate(typed: str) -> str:
    """The normalised reference, or TxRefError saying what is wrong with it."""
    ref = normalise(typed)
    if not ref:
        raise TxRefError(N_("Type a reference"))
    if not _SHAPE.fullmatch(ref):
        raise TxRefError(N_("A reference looks like SHOP-261122-K7QM4X-0042R9"))
    if not is_consistent(ref):
        raise TxRefError(NOT_CHECKING_OUT)
    return ref


class TxRefGenerator:
    """Makes references; ``next_sequence(day)`` may be backed by the ledger."""

    def __init__(
        self,
        prefix: str,
        installation_id: str,
        next_sequence: Callable[[date], int] | None = None,
        today: Callable[[], date] | None = None,
    ):
        prefix = prefix.upper()
        if not _PREFIX.fullmatch(prefix):
            raise TxRefError(N_("A prefix is 1 to 8 letters or digits"))
        if len(installation_id) != 6 or any(c not in INSTALLATION_ALPHABET for c in installation_id):
            raise TxRefError("An installation id is 6 characters")
        self.prefix = prefix
        self.installation_id = installation_id
        self._today = today or (lambda: datetime.now(UTC).date())
        self._lock = threading.Lock()
        self._counters: dict[date, int] = {}
        self._next_sequence = next_sequence or self._memory_sequence

    def _memory_sequence(self, day: date) -> int:
        with self._lock:
            self._counters[day] = self._counters.get(day, 0) + 1
            return self._counters[day]

    def next(self) -> str:
        day = self._today()
        seq = self._next_sequence(day)
        body = f"{self.prefix}-{day:%y%m%d}-{self.installation_id}-{seq:04d}"
        return body + check_characters(body)
