"""New sale (Escape) on a code that can still be paid: asked first, then voided; a payment
that comes after the void is shown in red until someone decides (Keep, or Refund…)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import Qt as GuiQt
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QLabel

from paydesk.ui.fixed_text import is_fixed
from tests.ui import press


def _confirm(loop, name="confirm-void"):
    loop.until(lambda: press.shown(name) is not None, message=f"the {name} box")
    return press.shown(name)


def _drawn_fixed(box, text: str) -> bool:
    """Whether the box shows ``text`` (a reference) in the fixed face, as staff read it out."""
    return any(
        is_fixed(label.font())
        for label in box.findChildren(QLabel)
        if label.isVisible() and text in (label.text(), label.toolTip())
    )


def test_escape_asks_then_voids_and_a_payment_after_it_is_shown_in_red(counter, loop):
    tab = counter.tab
    sale = counter.sell("7")
    # Escape, and the staff keeps waiting: nothing changes
    press.escape(tab.amount)
    box = _confirm(loop)
    assert box.question.text() == "Void this sale and start a new one?"
    press.click(press.button(box, "Keep waiting"))
    loop.until(lambda: press.shown("confirm-void") is None, message="the box closed")
    assert tab.mirror.sale.key == sale.key
    assert counter.texts_on_display() == ["Sandbox", "GBP 7.00", "WAITING FOR PAYMENT"]
    # New sale (the button), and Void sale: both screens blank, the sale voided
    task = press.starting("new sale", lambda: press.click(tab.new_sale_button))
    box = _confirm(loop)
    assert _drawn_fixed(box, sale.tx_ref)  # the reference, as staff read it out
    press.click(press.button(box, "Void sale"))
    voided = loop.run(task)
    assert voided.key == sale.key and voided.voided
    assert tab.mirror.sale is None and counter.texts_on_display() == ["Sandbox"]
    loop.until(lambda: counter.listed_state(sale.tx_ref) == "Voided", message="the list")
    loop.until(lambda: "voided 7.00" in tab.totals.text(), message="the totals")
    assert not tab.banner.isVisible()

    # the customer had scanned it, and pays anyway
    counter.pay(voided)
    loop.until(lambda: tab.banner.isVisible(), timeout=30, message="the red banner")
    assert tab.banner.text.text().startswith("Paid after void: refund or keep")
    assert tab.banner.reference.text() == f"Reference {sale.tx_ref}"
    assert tab.banner.reference.isVisible() and is_fixed(tab.banner.reference.font())
    loop.until(lambda: counter.listed_state(sale.tx_ref) == "Paid after void: refund or keep", message="the list")
    assert counter.texts_on_display() == ["Sandbox"]  # the customer's screen stays blank
    loop.until(lambda: "paid after void 7.00" in tab.totals.text(), message="the totals")
    assert "GBP: paid 0.00 · open 0.00 · voided 0.00" in tab.totals.text()
    task = press.starting("decide", lambda: press.click(tab.banner.keep))
    decided = loop.run(task)
    assert decided.decision == "keep"
    assert not tab.banner.isVisible()
    loop.until(lambda: counter.listed_state(sale.tx_ref) == "Paid after void: kept", message="the list")


def test_refund_asks_and_says_where_to_refund(counter, loop):
    tab = counter.tab
    sale = counter.sell("8")
    task = press.starting("new sale", lambda: press.escape(tab.amount))
    press.click(press.button(_confirm(loop), "Void sale"))
    loop.run(task)
    counter.pay(sale)
    loop.until(lambda: tab.banner.isVisible(), timeout=30, message="the red banner")
    task = press.starting("decide", lambda: press.click(tab.banner.refund))
    box = _confirm(loop, "confirm-refund")
    assert "dashboard" in box.explanation.text() and _drawn_fixed(box, sale.tx_ref)
    press.click(press.button(box, "Record refund"))
    decided = loop.run(task)
    assert decided.decision == "refund" and not tab.banner.isVisible()


def test_escape_after_paid_clears_without_asking(counter, loop):
    tab = counter.tab
    sale = counter.sell("6")
    counter.pay(sale)
    loop.until(lambda: tab.mirror.state.text() == "PAID", message="PAID on the staff's screen")
    task = press.starting("new sale", lambda: press.escape(tab.amount))
    assert loop.run(task) is None and press.shown("confirm-void") is None
    assert tab.mirror.sale is None


def test_keyboard_only_type_enter_enter_escape_confirm(counter, loop):
    """As staff at a till: type, Enter, Enter again (nothing), Escape, then the box's Void
    sale reached by Tab and pressed by Space; Escape in the box keeps waiting."""
    from PySide6.QtCore import Qt

    tab = counter.tab
    before = counter.calls()
    press.type_into(tab.amount, "11")
    sale = counter.loop.run(press.starting("sell", lambda: press.enter(tab.amount)), timeout=60)
    press.enter(tab.amount)
    assert counter.calls() - before == 1
    assert counter.texts_on_display() == ["Sandbox", "GBP 11.00", "WAITING FOR PAYMENT"]
    press.escape(tab.amount)
    box = _confirm(loop)
    press.escape(box)  # Escape in the box: keep waiting
    loop.until(lambda: press.shown("confirm-void") is None, message="the box closed")
    assert tab.mirror.sale.key == sale.key
    task = press.starting("new sale", lambda: press.escape(tab.amount))
    box = _confirm(loop)
    void = press.button(box, "Void sale")
    press.tab_to(void)
    press.key(void, Qt.Key.Key_Space)
    assert loop.run(task).voided
    assert tab.mirror.sale is None and counter.texts_on_display() == ["Sandbox"]
    assert tab.window().focusWidget() is tab.amount  # ready for the next customer


def test_void_sale_pressed_after_the_customer_paid_voids_nothing(counter, loop):
    """The confirm box left open while the customer pays: *Void sale* then voids nothing, and
    both screens show PAID (no false "paid after void")."""
    tab = counter.tab
    sale = counter.sell("9")
    task = press.starting("new sale", lambda: press.escape(tab.amount))
    box = _confirm(loop)
    counter.pay(sale)  # while the staff reads the box
    loop.until(lambda: tab.mirror.state.text() == "PAID", timeout=30, message="the payment heard while the box is open")
    press.click(press.button(box, "Void sale"))
    assert loop.run(task) is None
    assert tab.mirror.state.text() == "PAID" and tab.mirror.sale.key == sale.key
    assert tab.message.text() == "The customer paid meanwhile: nothing was voided"
    assert counter.view.phase in ("paid", "thanks")  # then blank, as after any payment
    assert tab.window().focusWidget() is tab.amount
    loop.until(lambda: counter.listed_state(sale.tx_ref) == "Paid", message="the list")
    loop.until(lambda: "GBP: paid 9.00" in tab.totals.text(), message="the totals")
    assert "voided 0.00" in tab.totals.text()
    assert not tab.banner.isVisible()
    # Escape clears the paid sale, and Enter sells again
    press.escape(tab.amount)
    loop.until(lambda: tab.mirror.sale is None, message="cleared")
    assert counter.sell("2") is not None


def _plain(label: QLabel) -> str:
    return _document(label).toPlainText()


def _document(label: QLabel) -> QTextDocument:
    """The label's text as a text document (not a widget: nothing pressed), rich or plain
    as the label reads it."""
    if label.textFormat() != Qt.TextFormat.PlainText and GuiQt.mightBeRichText(label.text()):
        document = QTextDocument()
        document.setHtml(label.text())
        return document
    return QTextDocument(label.text())  # plain text, as the label draws it


def _lines_taken(label: QLabel, text: str) -> int:
    """On how many lines ``label`` draws ``text``, laid out as the label lays out its text:
    in its font, wrapped at its width when it wraps words."""
    document = _document(label)
    document.setDefaultFont(label.font())
    document.setDocumentMargin(0)
    document.setTextWidth(label.contentsRect().width() if label.wordWrap() else -1)
    document.size()  # laid out
    start = document.toPlainText().index(text)
    lines = set()
    for at in (start, start + len(text) - 1):
        block = document.findBlock(at)
        lines.add((block.blockNumber(), block.layout().lineForTextPosition(at - block.position()).lineNumber()))
    return len(lines)


def _reference_whole(box, reference: str) -> None:
    """The box shows ``reference`` on one line in the fixed face, never broken: whole, or
    elided with the whole of it in the tooltip."""
    shown = [
        label
        for label in box.findChildren(QLabel)
        if label.isVisible() and (reference in _plain(label) or label.toolTip() == reference)
    ]
    assert shown, f"{reference} is not shown"
    for label in shown:
        if reference not in _plain(label):  # elided: the whole of it in the tooltip
            assert label.toolTip() == reference and "…" in label.text()
            assert not label.wordWrap() and is_fixed(label.font())
            continue
        assert _lines_taken(label, reference) == 1, f"{reference} broken in {label.text()!r}"


def test_the_void_box_never_breaks_the_reference(counter, loop):
    """A reference is read out and typed: the Void box shows it on one line, at the box's
    size as it opens and made as narrow as it goes (then elided, the whole in the tooltip)."""
    from dataclasses import replace

    tab = counter.tab
    session = counter.app.session
    loop.run(session.save_profile(replace(session.profile, txref_prefix="CORNERCF"), {}))
    sale = counter.sell("7")
    assert sale.tx_ref.startswith("CORNERCF-")
    press.escape(tab.amount)
    box = _confirm(loop)
    assert box.windowTitle() == "Void this sale?" and box.isWindow()
    _reference_whole(box, sale.tx_ref)
    wide = box.width()
    box.resize(1, 400)  # as narrow as a person can drag its corner (and taller)
    loop.until(lambda: box.width() < wide, message="the box narrower")
    _reference_whole(box, sale.tx_ref)
    press.escape(box)
