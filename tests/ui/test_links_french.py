"""A link the service refuses, with French chosen: the ledger keeps its reason in English (it
holds no words of a language: docs/USER_GUIDE.md), the Payment links tab says it in French."""

import httpx

from paydesk.i18n import ENGLISH, set_language
from tests.ui.test_links import create, fill


def test_a_refused_reference_is_kept_in_english_and_said_in_french(start_app, loop):
    app = start_app(sandbox=True, language="fr")
    try:
        app.wait_started()
        app.window.resize(1200, 900)
        tab, session = app.window.links_tab, app.session
        loop.until(lambda: tab.loaded, message="the links tab")
        fill(tab)
        # the service, not the form, refuses a reference it has seen before (another window used it)
        key = loop.run(session.key())
        httpx.post(
            session.profile.base_url + "/api/payment",
            json={
                "amount": "3",
                "currency": "GBP",
                "email": "z@example.com",
                "first_name": "Z",
                "last_name": "Y",
                "tx_ref": tab.form.tx_ref.text(),
            },
            headers={"Authorization": f"Bearer {key}"},
        ).raise_for_status()
        assert create(tab, loop) is None
        record = loop.run(session.ledger.recent(session.profile.id, "test"))[0]
        assert record.state == "rejected"
        assert record.error == "The service has this reference for another payment"
        assert tab.panel.error.text() == "Le service a déjà cette référence pour un autre paiement"
        assert app.close() == 0
    finally:
        set_language(ENGLISH)  # the next tests' language, whatever this one left
