"""The counter against the --family sandbox, which answers as the family's real server code does
(SERVICE.md 1b): a payment needs a title and a description, ``meta`` and ``callback_url`` may
be left out but not sent as null, and an amount outside the merchant's limits is refused with
the limit in a sentence, which the counter shows at the amount box."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tests import dialects
from tests.profiles import use_profile
from tests.ui.counter.conftest import SHOP_EMAIL, open_counter_tab


@pytest.fixture
def family_counter(start_app, loop, make_sandbox):
    """The Counter tab on a --family sandbox's profile with the shop's e-mail (test mode)."""
    app = start_app(sandbox=True)
    app.wait_started()
    sb = make_sandbox("family", base_path="/pay", **dialects.options("family"))
    profile = use_profile(loop, app.session, sb, name="Family Shop", txref_prefix="FAM", discover=True)
    loop.run(app.session.save_profile(replace(profile, shop_email=SHOP_EMAIL), {}))
    counter = open_counter_tab(app, loop)
    counter.sb = sb
    return counter


def test_a_sale_is_made_and_paid(family_counter, loop):
    counter = family_counter
    sale = counter.sell("7")
    assert sale is not None and sale.record.state == "pending", counter.tab.entry.message.text()
    assert counter.tab.mirror.state.text() == "WAITING FOR PAYMENT"
    assert sale.record.customization.get("description")  # the family requires one
    counter.pay(sale)
    loop.until(lambda: counter.tab.mirror.state.text() == "PAID", message="PAID")


def test_an_amount_outside_the_merchants_limits_is_said_at_the_amount_box(family_counter, loop):
    counter = family_counter
    counter.sb.settings(amount_limits={"GBP": {"min_amount": 5, "max_amount": 500}})
    assert counter.sell("3") is None
    entry = counter.tab.entry
    said = entry.messages["amount"]
    assert said.isVisible() and said.text() == "The minimum amount for GBP is 5"
    assert entry.message.text() == ""  # said where the amount is typed, not below the buttons
    assert counter.sell("8") is not None  # a sale the limits allow is made at once
