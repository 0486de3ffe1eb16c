"""ui/widgets.py: the one button, label, table and tool window every view makes."""

from PySide6.QtGui import QAccessible, QStandardItemModel
from PySide6.QtWidgets import QAbstractItemView, QWidget

from paydesk.ui.widgets import OwnWindow, ToolWindow, button, label, record_table


def _said(widget: QWidget) -> str:
    return QAccessible.queryAccessibleInterface(widget).text(QAccessible.Text.Name)


def test_a_button_is_named_by_its_visible_label(qtbot):
    for text, said in (
        ("&Pause", "Pause"),
        ("Save results…", "Save results"),
        ("Show in &Batches…", "Show in Batches"),
        ("Fish && &Chips", "Fish & Chips"),
        ("Keep", "Keep"),
    ):
        made = button(text, "some-button")
        qtbot.addWidget(made)
        assert (made.objectName(), _said(made)) == ("some-button", said)
    back = button("< &Back", "bulk-back", "Back")
    qtbot.addWidget(back)
    assert _said(back) == "Back"


def test_a_label_shows_plain_text(qtbot):
    made = label("some-label")
    qtbot.addWidget(made)
    made.setText("<b>not bold</b>")
    assert made.textFormat().name == "PlainText" and made.wordWrap()


def test_a_record_table_selects_whole_rows_and_edits_nothing(qtbot):
    table = record_table("some-table", QStandardItemModel(2, 2), "Some records")
    qtbot.addWidget(table)
    assert _said(table) == "Some records"
    assert table.selectionBehavior() == QAbstractItemView.SelectionBehavior.SelectRows
    assert table.editTriggers() == QAbstractItemView.EditTrigger.NoEditTriggers
    assert table.verticalHeader().isHidden()  # no row numbers, but a file's rows
    numbered = record_table("file-rows", QStandardItemModel(2, 2), "The file's rows", row_numbers=True)
    qtbot.addWidget(numbered)
    assert not numbered.verticalHeader().isHidden()


def test_a_tool_window_is_made_once_and_raised_each_time(qtbot):
    made: list[QWidget] = []

    def make() -> QWidget:
        window = QWidget()
        window.setWindowTitle("Tool")
        qtbot.addWidget(window)
        made.append(window)
        return window

    tool = ToolWindow(make)
    assert tool.window is None
    first = tool.open()
    assert first.isVisible()
    first.close()  # closing only hides it
    assert tool.open() is first and first.isVisible() and made == [first]
    tool.close()
    assert not first.isVisible()


def test_a_window_of_its_own_is_named_by_its_title(qtbot):
    made = OwnWindow(None, "some-window", "Some window — PayDesk", (900, 600))
    qtbot.addWidget(made)
    assert made.isWindow() and made.objectName() == "some-window"
    assert _said(made) == made.windowTitle() == "Some window — PayDesk"
    named = OwnWindow(None, "other-window", "Other — PayDesk", (900, 600), "Other")
    qtbot.addWidget(named)
    assert _said(named) == "Other"
