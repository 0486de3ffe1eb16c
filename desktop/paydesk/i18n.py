"""The words PayDesk shows, in its reader's language: gettext, as Electrum does it.

One ``_()`` for the Qt-free desk and for the widgets alike, plural forms through
``ngettext``, and no sentence built from pieces: a sentence with something in it is one
message with a named placeholder (``_("Void {reference}?").format(reference=...)``).

Two readers, two languages:
- the staff's (``_``, ``ngettext``): chosen in Settings → Language, by default the
  system's; set once at start (``set_language``), before any window is built;
- the customer's (``customer(language)``): the counter display, receipts, the QR sheet
  and e-mails, in the language set on the profile ("Customer language").

Words kept at import time (a table's headings, a list of choices) are marked with
``N_()`` for the catalogue and translated with ``_()`` where they are shown.

The catalogues are ``locale/<language>/LC_MESSAGES/paydesk.po``, compiled beside
themselves to ``paydesk.mo`` (``./dev catalogues``; a test fails when a compiled
catalogue is older than its source). The pseudo-language ``qps`` needs no catalogue: every
message is accented, made 40% longer and bracketed, so that text nobody translated shows
at once and the layout is tried with longer words.

Formats (amounts, numbers, dates) follow the language through Babel (``formats.py`` of
the layer that shows them); exports and the ledger stay machine-readable whatever the
language.
"""

from __future__ import annotations

import gettext as _gettext
import locale
import os
import threading
from functools import cache
from pathlib import Path

from .service import words as _service_words

DOMAIN = "paydesk"
LOCALE_DIR = Path(__file__).with_name("locale")
ENGLISH = "en"
PSEUDO = "qps"  # the pseudo-language: accented, longer, bracketed (a layout check)
# the languages offered, each named in itself
LANGUAGES: dict[str, str] = {ENGLISH: "English", "fr": "Français", PSEUDO: "[Ƥšéûđô]"}
CUSTOMER_LANGUAGES: dict[str, str] = {ENGLISH: "English", "fr": "Français"}


class Words:
    """One language's messages. ``gettext``/``ngettext`` answer the English message itself
    when the language has no translation for it (gettext's fallback)."""

    def __init__(self, language: str) -> None:
        self.language = language
        self._catalogue: _gettext.NullTranslations
        if language == PSEUDO:
            self._catalogue = _gettext.NullTranslations()
        else:
            self._catalogue = _gettext.translation(DOMAIN, LOCALE_DIR, [language], fallback=True)

    def gettext(self, message: str) -> str:
        if self.language == PSEUDO:
            return pseudo(message)
        return self._catalogue.gettext(message)

    def pgettext(self, context: str, message: str) -> str:
        """``message`` as meant in ``context``: one English word, two meanings ("Paid", the
        state; "Paid", the receipt's line of the moment it was paid)."""
        if self.language == PSEUDO:
            return pseudo(message)
        return self._catalogue.pgettext(context, message)

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        if self.language == PSEUDO:
            return pseudo(singular if n == 1 else plural)
        return self._catalogue.ngettext(singular, plural, n)

    @property
    def locale(self) -> str:
        """The language's locale for Babel's formats (the pseudo-language formats as English)."""
        return ENGLISH if self.language == PSEUDO else self.language


_lock = threading.Lock()
_staff = Words(ENGLISH)


def set_language(language: str) -> Words:
    """The staff's language from now on: called once at start, before any window is built
    (a change in Settings → Language takes effect at the next start)."""
    global _staff
    chosen = language if language in LANGUAGES else ENGLISH
    with _lock:
        _staff = Words(chosen)
    return _staff


def staff() -> Words:
    return _staff


def _(message: str) -> str:
    """``message`` in the staff's language."""
    return _staff.gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The plural form for ``n`` in the staff's language ("1 link", "2 links")."""
    return _staff.ngettext(singular, plural, n)


def pgettext(context: str, message: str) -> str:
    """``message`` as meant in ``context``, in the staff's language (the tab "Counter", not
    the role)."""
    return _staff.pgettext(context, message)


def _service_sentence(message: str) -> str:
    return _staff.gettext(message)


# the service layer's own sentences (a network failure) in the staff's language: it imports no
# words, so it is given the translation (service/words.py)
_service_words.use_translation(_service_sentence)


def N_(message: str) -> str:  # noqa: N802 (gettext's own name for "mark, translate later")
    """Marks ``message`` for the catalogue; translated with ``_()`` where it is shown."""
    return message


def NP_(context: str, message: str) -> str:  # noqa: N802 (as N_, with a context)
    """Marks ``message`` for the catalogue in ``context``; translated with ``pgettext``."""
    return message


@cache
def customer(language: str | None) -> Words:
    """The customer's words: the display, receipts, the QR sheet, e-mails."""
    return Words(language if language in CUSTOMER_LANGUAGES else ENGLISH)


def system_language(environ: dict[str, str] | None = None) -> str:
    """The system's language among those offered (LANGUAGE, LC_ALL, LC_MESSAGES, LANG, as
    gettext reads them; else the locale module's), English when none is offered."""
    env = os.environ if environ is None else environ
    candidates: list[str] = []
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(name)
        if value:
            candidates.extend(value.split(":"))
            break
    if not candidates and environ is None:
        code = locale.getlocale()[0]
        if code:
            candidates.append(code)
    for candidate in candidates:
        code = candidate.split(".")[0].split("@")[0].split("_")[0].lower()
        if code in LANGUAGES and code != PSEUDO:
            return code
    return ENGLISH


# --- the pseudo-language -------------------------------------------------------------------

_ACCENTED = str.maketrans(
    "aAcCeEgGiIkKlLnNoOrRsStTuUyYzZ",
    "áÅçÇéÉĝĜîÎķĶļĻñÑöÖŕŔšŠţŢûÛýÝžŽ",
)
_LONGER = 0.4  # how much longer than English: German and French run 30 to 40% longer
_WORD = 10  # the padding's letters to a word


def pseudo(message: str) -> str:
    """``message`` accented, 40% longer and in brackets, its placeholders ({name}, %s, %(x)s),
    its mnemonic ("&") and its markup (<b>) left as they are."""
    out: list[str] = []
    i = 0
    letters = 0
    while i < len(message):
        ch = message[i]
        end = _kept_from(message, i)
        if end > i:
            out.append(message[i:end])
            i = end
            continue
        if ch.isalpha():
            letters += 1
        out.append(ch.translate(_ACCENTED))
        i += 1
    if not letters:
        return message
    padding = max(1, round(letters * _LONGER))
    filler = ("~" * padding) if padding < 3 else ("·" + "~" * (padding - 1))
    # in words of a language's length: a long sentence's padding is no one word wider than
    # any word of French or German (a label wraps it as it would wrap theirs)
    if len(filler) > _WORD:
        filler = "".join(" " + filler[i : i + _WORD] for i in range(0, len(filler), _WORD))
    return f"[{''.join(out)}{filler}]"


def _kept_from(message: str, i: int) -> int:
    """Where a placeholder, mnemonic or tag starting at ``i`` ends (``i`` when none does)."""
    ch = message[i]
    if ch == "{":
        end = message.find("}", i)
        return end + 1 if end > 0 else i
    if ch == "%" and i + 1 < len(message):
        if message[i + 1] == "(":
            end = message.find(")", i)
            return end + 2 if end > 0 else i
        return i + 2
    if ch == "&" and i + 1 < len(message):
        return i + 2
    if ch == "<":
        end = message.find(">", i)
        return end + 1 if end > 0 else i
    return i
