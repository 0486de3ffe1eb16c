"""The shared ledger's migration 8: search folds accents and case, as the desk's file does
(``ledger/schema.py``, V11), with the same table (``ledger/fold.py``).

``paydesk_fold(text)`` is that table said in SQL (``fold.pg_function``: IMMUTABLE, so the
server folds each row itself: any desk's write, an import's COPY, an older row when the
column is added). ``search_folded`` is a stored generated column of the search text
folded, and ``links_search``, the trigram index, is built on it in place of the search
text (the name kept: the one search index). Not ``unaccent`` (postgresql-contrib): its
rules are the server's own file and its lower() the database's locale, so a desk's file
and the shop's server could fold a letter two ways; this function is the desk's table, the
same on every server, and a test compares the two character by character. (A first
version folded every Latin, Greek and Cyrillic letter through one ``translate`` list of a
thousand characters: importing 200,000 records took 63 s instead of 13.)
"""

from __future__ import annotations

from ..fold import pg_function

VERSION = 8

# the reference, the service's reference, the e-mail and the name, unit separators between
# them so no match spans two (as SQLite's links.search_text): migration 1's generated
# search_text, and what search_folded folds
SEARCH_TEXT = (
    "tx_ref || chr(31) || COALESCE(reference, '') || chr(31) || email || chr(31) || first_name || ' ' || last_name"
)

STATEMENTS = [
    pg_function("paydesk_fold"),
    f"""ALTER TABLE links ADD COLUMN search_folded text COLLATE "C"
        GENERATED ALWAYS AS (paydesk_fold({SEARCH_TEXT})) STORED""",
    "DROP INDEX links_search",
    "CREATE INDEX links_search ON links USING gin (search_folded gin_trgm_ops)",
]

MIGRATION: tuple[int, str] = (VERSION, ";\n".join(STATEMENTS))
