"""A counter sale uses up the day's next reference: the Payment links form, which had
proposed that one, proposes the next free one (never a reference already used)."""

from __future__ import annotations

from tests.ui import press


def test_the_forms_proposed_reference_moves_on_after_a_counter_sale(counter, loop):
    window = counter.window
    form = window.links_tab.form
    proposed = form.tx_ref.text()
    sale = counter.sell("4")
    assert sale.tx_ref == proposed  # the counter took the number the form had proposed
    counter.pay(sale)
    loop.until(lambda: counter.listed_state(sale.tx_ref) == "Paid", timeout=30, message="the sale paid")
    # the form was hidden: once it is seen again it proposes the next free reference (the
    # sale settled: nothing more is heard of its link that would move it on otherwise)
    press.tab(window.tabs, "Payment links")
    loop.until(lambda: form.tx_ref.text() not in ("", proposed), message="a new proposal")
    for field, text in (
        ("amount", "30"),
        ("email", "ada@example.com"),
        ("first_name", "Ada"),
        ("last_name", "Lovelace"),
        ("title", "Invoice"),
    ):
        press.type_into(getattr(form, field), text)
    tx_ref = form.tx_ref.text()
    record = loop.run(press.click_starting(form.create_button, "create"), timeout=60)
    assert record is not None and record.tx_ref == tx_ref != sale.tx_ref
