"""Marks the sentences of the service layer that a person reads, for the catalogue.

``scripts/catalogues`` extracts every ``N_("...")`` under paydesk/, this layer's too; but the
service layer imports no words (paydesk/i18n.py stands above it: import-linter's
"service-alone"), so its sentences stay English here and the layer that shows one says it
in the reader's language: ``_(str(error))`` (desk/checks.py, desk/lookup.py, desk/links.py).
Messages for the logs or for the service itself are not marked.
"""

from __future__ import annotations


def N_(message: str) -> str:  # noqa: N802 (gettext's own name for "mark, translate later")
    """``message`` as it is, marked for the catalogue."""
    return message
