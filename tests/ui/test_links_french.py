"""A link the service refuses, with French chosen: the ledger keeps its reason in English (it
holds no words of a language: docs/USER_GUIDE.md), the Payment links tab says it in French."""

from tests.ui.test_links import create, fill, taken_elsewhere


def test_a_refused_reference_is_kept_in_english_and_said_in_french(start_app, loop):
    app = start_app(sandbox=True, language="fr")
    app.wait_started()
    app.window.resize(1200, 900)
    tab, session = app.window.links_tab, app.session
    loop.until(lambda: tab.loaded, message="the links tab")
    fill(tab)
    taken_elsewhere(session, loop, tab.form.tx_ref.text())
    assert create(tab, loop) is None
    record = loop.run(session.ledger.recent(session.profile.id, "test"))[0]
    assert record.state == "rejected"
    assert record.error == "The service has this reference for another payment"
    assert tab.panel.error.text() == "Le service a déjà cette référence pour un autre paiement"
    assert app.close() == 0
