"""Text as search compares it: accents and case folded ("Ødegård", "ODEGARD" -> "odegard").

One table, built here, folds the search text on both backends: SQLite calls ``fold`` (a
function the ledger registers on its writer's connection), PostgreSQL a SQL function made
from the same table by ``pg_function`` (its generated column is folded by the server
itself). Both then give the same answers, which a test checks character by character.

The table covers the Latin, Greek and Cyrillic letters (U+00C0-U+024F, U+0370-U+04FF,
U+1E00-U+1FFF): each letter's compatibility decomposition without its marks, in lower
case ("É" -> "e", "ǆ" -> "dz"), and the letters no decomposition takes apart said by hand
(Ø ø -> o, ß -> ss, Æ æ -> ae, Œ œ -> oe, Ł ł -> l, Đ đ Ð ð -> d, Þ þ -> th, Ħ ħ -> h,
ı -> i, Ŧ ŧ -> t; and Ŀ ŀ -> l, without the middle dot its decomposition adds). ASCII
capitals fold to small letters; combining marks (U+0300-U+036F, text typed decomposed)
are dropped. Anything else (other scripts, digits, symbols, the unit separator between
fields) stays as it is. Decompositions never change for a character once assigned
(Unicode's stability policy), so the table is the same with every Python. Folding is
idempotent: a folded text folds to itself.
"""

from __future__ import annotations

import unicodedata

_RANGES = ((0x00C0, 0x024F), (0x0370, 0x04FF), (0x1E00, 0x1FFF))
_COMBINING = range(0x0300, 0x0370)
_BY_HAND = {
    "Ø": "o", "ø": "o", "ß": "ss", "ẞ": "ss", "Æ": "ae", "æ": "ae", "Œ": "oe", "œ": "oe",
    "Ł": "l", "ł": "l", "Đ": "d", "đ": "d", "Ð": "d", "ð": "d", "Þ": "th", "þ": "th",
    "Ħ": "h", "ħ": "h", "ı": "i", "Ŧ": "t", "ŧ": "t", "Ŀ": "l", "ŀ": "l",
}


def _folded(char: str) -> str:
    if char in _BY_HAND:
        return _BY_HAND[char]
    bare = "".join(c for c in unicodedata.normalize("NFKD", char) if not unicodedata.combining(c))
    return bare.lower()


def _table() -> dict[str, str]:
    folds = {chr(c): chr(c).lower() for c in range(ord("A"), ord("Z") + 1)}
    for first, last in _RANGES:
        for code in range(first, last + 1):
            char = chr(code)
            if unicodedata.category(char)[0] != "L":
                continue
            into = _folded(char)
            if into != char and into:
                folds[char] = into
    # a letter folds into letters that fold no further (idempotent)
    for char, into in folds.items():
        folds[char] = "".join(folds.get(c, c) for c in into)
    return folds


FOLDS = _table()  # a character -> what it folds into (one character or more)
_TRANSLATE: dict[int, str | None] = {ord(k): v for k, v in FOLDS.items()}
_TRANSLATE.update({code: None for code in _COMBINING})


def fold(text: str) -> str:
    """``text`` as search compares it."""
    if text.isascii():
        return text.lower()
    return text.translate(_TRANSLATE)


def pg_function(name: str = "paydesk_fold") -> str:
    """``CREATE FUNCTION name(text)``: the same folding in PostgreSQL's SQL (IMMUTABLE, so a
    generated column and an index may use it): the letters that fold into several by
    ``replace``, then one ``translate`` for the letters that fold into one and the marks
    dropped (``translate`` removes a character that has no counterpart)."""
    many = [(k, v) for k, v in FOLDS.items() if len(v) > 1]
    singles = [(k, v) for k, v in FOLDS.items() if len(v) == 1]
    source = "".join(k for k, _ in singles) + "".join(chr(c) for c in _COMBINING)
    target = "".join(v for _, v in singles)
    body = "$1"
    for char, into in many:
        body = f"replace({body}, '{char}', '{into}')"
    if any(c in "'$" for c in source + target):  # pragma: no cover - letters only
        raise ValueError("the fold table holds a quote")
    return (f"CREATE FUNCTION {name}(text) RETURNS text LANGUAGE sql IMMUTABLE STRICT"
            f" PARALLEL SAFE AS $fold$ SELECT translate({body}, '{source}', '{target}') $fold$")
