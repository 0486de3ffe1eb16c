"""Marks the sentences of the service layer that a person reads, for the catalogue.

``scripts/catalogues`` extracts every ``N_("...")`` under paydesk/, this layer's too; but the
service layer imports no words (paydesk/i18n.py stands above it: import-linter's
"service-alone"), so its sentences stay English here and the layer that shows one says it
in the reader's language: ``_(str(error))`` (desk/checks.py, desk/lookup.py, desk/links.py).
Messages for the logs or for the service itself are not marked.
"""

from __future__ import annotations

from collections.abc import Callable

# the reader's language for this layer's own sentences: set by paydesk.i18n when it is
# imported (the service layer imports no words; a script using the client alone reads English)
_translate: Callable[[str], str] = str


def use_translation(translate: Callable[[str], str]) -> None:
    """The function that puts one of this layer's marked sentences in the reader's language."""
    global _translate
    _translate = translate


def said(message: str, values: dict[str, object]) -> str:
    """``message`` (marked with ``N_``) in the reader's language, its placeholders filled."""
    return _translate(message).format(**values)


def N_(message: str) -> str:  # noqa: N802 (gettext's own name for "mark, translate later")
    """``message`` as it is, marked for the catalogue."""
    return message
