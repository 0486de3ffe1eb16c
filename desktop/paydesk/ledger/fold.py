"""Text as search compares it: accents and case folded ("Ødegård", "ODEGARD" -> "odegard").

The same folding on both backends: SQLite calls ``fold`` (a function the ledger registers
on its writer's connection), PostgreSQL a SQL function ``pg_function`` makes from the same
table (its generated column is folded by the server itself). A test compares the two
character by character. The folding, in this order:

1. Text all ASCII is only lower-cased (most of it: quick on both sides).
2. Canonical decomposition (NFD: "é" becomes "e" and a combining acute), and the
   combining marks U+0300-U+036F dropped: every accented letter of every script.
3. One table: ASCII capitals to small letters; the Latin letters no decomposition takes
   apart, said by hand (Ø ø -> o, ß -> ss, Æ æ -> ae, Œ œ -> oe, Ł ł -> l, Đ đ Ð ð -> d,
   Þ þ -> th, Ħ ħ -> h, ı -> i, Ŧ ŧ -> t, Ŀ ŀ -> l); and the other Latin capitals that
   stay whole (U+00C0-U+024F, U+1E00-U+1EFF) to their small letter.

Other scripts keep their case, as before (Greek and Cyrillic lose their accents in step
2); digits, symbols and the unit separator between fields stay. Canonical decompositions
never change once assigned (Unicode's stability policy), so Python and PostgreSQL
decompose alike. Folding is idempotent: a folded text folds to itself.

The table is kept small on purpose: PostgreSQL's ``translate`` looks each character up
along its whole list, and a list of every Latin, Greek and Cyrillic letter made an import
of 200,000 records five times slower.
"""

from __future__ import annotations

import unicodedata

_COMBINING = range(0x0300, 0x0370)
_LATIN = ((0x00C0, 0x024F), (0x1E00, 0x1EFF))
_BY_HAND = {
    "Ø": "o",
    "ø": "o",
    "ß": "ss",
    "ẞ": "ss",
    "Æ": "ae",
    "æ": "ae",
    "Œ": "oe",
    "œ": "oe",
    "Ł": "l",
    "ł": "l",
    "Đ": "d",
    "đ": "d",
    "Ð": "d",
    "ð": "d",
    "Þ": "th",
    "þ": "th",
    "Ħ": "h",
    "ħ": "h",
    "ı": "i",
    "Ŧ": "t",
    "ŧ": "t",
    "Ŀ": "l",
    "ŀ": "l",
}


def _table() -> dict[str, str]:
    folds = {chr(c): chr(c).lower() for c in range(ord("A"), ord("Z") + 1)}
    folds.update(_BY_HAND)
    for first, last in _LATIN:
        for code in range(first, last + 1):
            char = chr(code)
            if char in folds or unicodedata.category(char) != "Lu" or unicodedata.normalize("NFD", char) != char:
                continue  # folded already, no capital, or taken apart by step 2
            small = char.lower()
            if len(small) == 1 and small != char:
                folds[char] = folds.get(small, small)
    return folds


FOLDS = _table()  # step 3: a character -> what it folds into (one character or two)
_TRANSLATE: dict[int, str | None] = {ord(k): v for k, v in FOLDS.items()}
_TRANSLATE.update({code: None for code in _COMBINING})


def fold(text: str) -> str:
    """``text`` as search compares it."""
    if text.isascii():
        return text.lower()
    return unicodedata.normalize("NFD", text).translate(_TRANSLATE)


def pg_function(name: str = "paydesk_fold") -> str:
    """``CREATE FUNCTION name(text)``: ``fold`` in PostgreSQL's SQL (IMMUTABLE, so a
    generated column and an index may use it; the server's encoding is UTF8). All ASCII
    (as many bytes as characters): lower() alone. Else ``normalize`` (NFD), the marks
    dropped by ``regexp_replace``, the letters that fold into two by ``replace``, those that
    fold into one by one ``translate``, and ASCII capitals by lower() under the "C"
    collation (ASCII only, as ``fold``'s table)."""
    many = [(k, v) for k, v in FOLDS.items() if len(v) > 1]
    singles = [(k, v) for k, v in FOLDS.items() if len(v) == 1 and not k.isascii()]
    source = "".join(k for k, _ in singles)
    target = "".join(v for _, v in singles)
    marks = f"[{chr(_COMBINING[0])}-{chr(_COMBINING[-1])}]"
    body = f"regexp_replace(normalize($1, NFD), '{marks}', '', 'g')"
    for char, into in many:
        body = f"replace({body}, '{char}', '{into}')"
    if any(c in "'$" for c in source + target):  # pragma: no cover - letters only
        raise ValueError("the fold table holds a quote")
    return (
        f"CREATE FUNCTION {name}(text) RETURNS text LANGUAGE sql IMMUTABLE STRICT"
        f" PARALLEL SAFE AS $fold$ SELECT CASE"
        f' WHEN octet_length($1) = char_length($1) THEN lower($1 COLLATE "C")'
        f" ELSE lower(translate({body}, '{source}', '{target}') COLLATE \"C\") END $fold$"
    )
