"""Issue 28, item 16: the audit log's card column keeps the card's last four digits in sight
(the masked number elided in its middle, never at its end, the whole of it on hover, in the
fixed face), and the Fund and Withdraw dialogs' heading shows the balance after Done.

What a cell shows is read as the view paints it: its delegate's text for the cell's rect,
elided by the style's own rule for the text's room (QCommonStyle's viewItemDrawText: the
text rectangle less a focus margin each side)."""

from __future__ import annotations

from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QLabel, QStyle, QStyleOptionViewItem

from paydesk.ui.cards.audit import MASKED
from paydesk.ui.fixed_text import fixed_font, is_fixed
from tests.ui import press
from tests.ui.cards.test_wallet import Desk


def painted(view, index, width: int) -> str:
    """The text the view paints in the cell at ``index`` when its column is ``width`` wide."""
    option = QStyleOptionViewItem()
    option.widget = view
    option.rect = QRect(0, 0, width, view.rowHeight(index.row()))
    option.font = view.font()
    option.fontMetrics = view.fontMetrics()
    option.textElideMode = view.textElideMode()  # as the view sets it up (QAbstractItemView)
    view.itemDelegateForIndex(index).initStyleOption(option, index)
    style = view.style()
    room = style.subElementRect(QStyle.SubElement.SE_ItemViewItemText, option, view).width()
    room -= 2 * (style.pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, view) + 1)
    return option.fontMetrics.elidedText(option.text, option.textElideMode, room)


def test_the_audit_logs_card_column_never_hides_the_last_four(start_app, loop):
    app = start_app(sandbox=True)
    app.wait_started()
    desk = Desk(app, loop)
    _, card = desk.create("40", "GBP")
    press.tab(desk.tab.sections, "Audit log")
    audit = desk.tab.audit
    loop.until(lambda: audit.model.rowCount() >= 2, message="the audit lines")
    table, model = audit.table, audit.model
    index = model.index(0, MASKED)
    assert model.data(index) == card.masked  # the cell's text: the whole masked number
    # as the tab opens, the column is wide enough for all of it
    assert painted(table, index, table.columnWidth(MASKED)) == card.masked
    # narrower, it loses digits in its middle, never the last four (down to a column just
    # wide enough for "…" and four digits, with the cell's margins)
    whole = table.columnWidth(MASKED)
    least = QFontMetrics(fixed_font()).horizontalAdvance("…" + card.last4) + 12
    shown = {width: painted(table, index, width) for width in range(whole, least, -1)}
    assert all(text.endswith(card.last4) for text in shown.values()), shown
    shown = list(shown.values())
    assert any("…" in text and text.startswith(card.masked[:4]) for text in shown), shown
    assert model.data(index, Qt.ItemDataRole.ToolTipRole) == card.masked
    assert is_fixed(model.data(index, Qt.ItemDataRole.FontRole))


def test_the_fund_and_withdraw_headings_show_the_new_balance(start_app, loop):
    app = start_app(sandbox=True)
    app.wait_started()
    desk = Desk(app, loop)
    desk.create("30", "GBP")
    for kind, amount, before, balance in (
        ("fund", "5", "GBP 30.00", "GBP 35.00"),
        ("withdraw", "2", "GBP 35.00", "GBP 33.00"),
    ):
        desk.press(desk.tab.page.buttons[kind])
        dialog = desk.dialog(f"{kind}-dialog")
        heading = dialog.findChild(QLabel, f"{kind}-heading")
        assert f"balance {before}" in heading.text()
        press.type_into(dialog.amount, amount)
        desk.submit(dialog, "New balance")
        assert f"New balance: {balance}" in dialog.outcome.text()
        loop.until(
            lambda heading=heading, balance=balance: f"balance {balance}" in heading.text(),
            message="the heading's new balance",
        )
        assert heading.accessibleName() == heading.text()
        desk.close(dialog)
