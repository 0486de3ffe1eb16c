"""Create link against the --family sandbox, which answers as the family's real server code
does (SERVICE.md 1b): it refuses ``meta`` or ``callback_url`` sent as null (PayDesk leaves out
what was not given), and refuses an amount outside the merchant's limits with the limit in a
sentence, which the form shows at the Amount field."""

from __future__ import annotations

import pytest

from tests import dialects
from tests.profiles import use_profile
from tests.ui import press
from tests.ui.test_links import create, fill


@pytest.fixture
def family(start_app, loop, make_sandbox):
    """PayDesk on a --family sandbox's profile (test mode), its links tab loaded."""
    app = start_app(sandbox=True)
    app.wait_started()
    app.window.resize(1200, 900)
    sb = make_sandbox("family", base_path="/pay", **dialects.options("family"))
    use_profile(loop, app.session, sb, name="Family", txref_prefix="FAM", discover=True)
    loop.until(lambda: app.window.links_tab.loaded, message="the links tab")
    app.sb = sb
    return app


def test_a_link_with_nothing_optional_is_made_and_with_extras_too(family, loop):
    tab = family.window.links_tab
    fill(tab)  # no extra field, no callback or return URL: none of them is sent as null
    assert tab.form.callback_url.text() == "" and tab.form.meta.pairs() == []
    record = create(tab, loop)
    assert record is not None and record.state == "pending", tab.form.why_disabled.text()
    assert tab.panel.state.text() == "WAITING FOR PAYMENT"
    fill(tab, callback_url="https://shop.example/paid")
    press.click(tab.form.meta.add_button)
    name, value, _ = tab.form.meta.rows[-1]
    loop.until(name.isVisible, message="the new row on screen")
    press.type_into(name, "till")
    press.type_into(value, "3")
    second = create(tab, loop)
    assert second is not None and second.state == "pending", tab.form.why_disabled.text()
    assert second.meta == {"till": "3"} and second.callback_url == "https://shop.example/paid"


@pytest.mark.parametrize(
    "amount,said", [("3", "The minimum amount for GBP is 5"), ("600", "The maximum amount for GBP is 500")]
)
def test_an_amount_outside_the_merchants_limits_is_said_at_the_amount_field(family, loop, amount, said):
    family.sb.settings(amount_limits={"GBP": {"min_amount": 5, "max_amount": 500}})
    tab = family.window.links_tab
    fill(tab, amount=amount)
    assert tab.form.create_button.isEnabled()  # PayDesk does not know the merchant's limits
    assert create(tab, loop) is None
    message = tab.form.messages["amount"]
    assert message.isVisible() and message.text() == said
    assert tab.form.why_disabled.text() == ""  # one sentence, where the amount is typed
    assert tab.panel.state.text() == "NOT CREATED"
    press.type_into(tab.form.amount, "25")  # corrected: the message goes, the link is made
    assert not message.isVisible()
    assert create(tab, loop).state == "pending"
