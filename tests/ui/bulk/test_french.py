"""Bulk links in French: PayDesk started with French chosen, a file taken through the four
steps (the file, its columns, the dry run, the batch sent) as a user does it, each step's
words read as the person sees them."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QLabel

from tests.ui import press
from tests.ui.bulk.conftest import row, write_csv

NBSP = "\u00a0"


@pytest.fixture
def french(start_app, qapp):
    """PayDesk started in French; English again after (tests/ui/conftest.py)."""
    app = start_app(sandbox=True, language="fr")
    yield app.on_links_tab()
    if not app.task.done():
        app.close()


def test_the_bulk_window_in_french_says_each_step_in_french(french, loop, tmp_path):
    app = french
    press.click(app.window.links_tab.bulk)
    loop.until(lambda: press.shown("bulk-window") is not None, message="Liens par lot")
    window = press.shown("bulk-window")
    assert window.windowTitle().startswith("Liens par lot — ")

    # 1. the file
    files = window.file_step
    assert files.accessibleName() == "Fichier"
    assert (files.choose.text(), files.template.text()) == ("&Choisir le fichier…", "&Télécharger le modèle…")
    assert any(
        label.text().startswith("Créez un lien de paiement pour chaque ligne") for label in files.findChildren(QLabel)
    )
    path = write_csv(tmp_path / "frais.csv", [row(2), row(3), row(4, email="personne")], blank_last=True)
    press.click(files.choose)
    loop.until(lambda: press.shown("bulk-open-dialog") is not None, message="the file dialog")
    press.save_as(press.shown("bulk-open-dialog"), path)

    # 2. the columns
    loop.until(lambda: window.stack.currentWidget() is window.mapping_step, message="the columns")
    columns = window.mapping_step
    assert columns.summary.text() == f"frais.csv{NBSP}: 3 lignes, 1 ligne vide ignorée"
    assert columns.boxes["description"].currentText() == "(absent du fichier)"
    assert columns.boxes["email"].accessibleName() == "email (obligatoire)"
    assert (window.back.text(), window.next.text()) == ("< &Retour", "&Vérifier les lignes >")

    # 3. the dry run
    press.click(window.next)
    loop.until(lambda: window.stack.currentWidget() is window.check_step, message="the dry run")
    check = window.check_step
    assert check.counts.text() == f"Lignes valides{NBSP}: 2, en erreur{NBSP}: 1, vides ignorées{NBSP}: 1"
    problems = check.problems_model
    assert problems.rowCount() == 1
    assert problems.data(problems.index(0, 0)).startswith(f"Ligne 4, email{NBSP}: ")
    assert check.create_links.text() == "Créer 2 liens"
    press.click(check.all)
    assert check.all.text() == "&Tout ou rien"
    assert check.why.text() == (f"Tout ou rien{NBSP}: corrigez d’abord 1 ligne en erreur, ou choisissez de l’ignorer")
    assert not check.create_links.isEnabled()
    press.click(check.skip)
    assert check.skip.text() == "Créer les lignes valides, &ignorer les autres"

    # 4. the batch sent
    press.click(check.create_links)
    loop.until(lambda: window.stack.currentWidget() is window.progress_step, message="the progress")
    progress = window.progress_step
    assert (progress.pause.text(), progress.resume.text()) == ("&Pause", "&Reprendre")
    outcome = progress.outcome
    loop.until(lambda: outcome.isVisible() and outcome.text(), 60, message="the batch to end")
    assert progress.figures.text().startswith(f"Créés{NBSP}: 2, refusés{NBSP}: 0, restants{NBSP}: 0")
    assert progress.bar.text() == "2 sur 2"
