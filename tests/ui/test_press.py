"""press.py itself: it refuses what a user could not do (REVIEW 2, 10): a button behind a modal
window, a key sent to a field that does not have the keyboard, a "replace?" box that never
came. Real widgets, offscreen; nothing of PayDesk's is needed."""

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QComboBox, QDialog, QLineEdit, QMessageBox, QPushButton, QVBoxLayout, QWidget

from tests.ui import press


@pytest.fixture
def window(qtbot):
    window = QWidget()
    window.setWindowTitle("Desk")
    layout = QVBoxLayout(window)
    window.first, window.second = QLineEdit(), QLineEdit()
    window.button, window.combo = QPushButton("Go"), QComboBox()
    window.combo.addItems(["one", "two", "three"])
    window.pressed = []
    window.button.clicked.connect(lambda: window.pressed.append("Go"))
    for widget in (window.first, window.second, window.button, window.combo):
        layout.addWidget(widget)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    return window


def _modal(parent, modality, qtbot):
    dialog = QDialog(parent)
    dialog.setWindowModality(modality)
    dialog.setLayout(QVBoxLayout())
    dialog.field = QLineEdit()
    dialog.layout().addWidget(dialog.field)
    dialog.show()
    qtbot.waitExposed(dialog)
    return dialog


@pytest.mark.parametrize("modality", [Qt.WindowModality.WindowModal, Qt.WindowModality.ApplicationModal])
def test_a_button_behind_a_modal_dialog_cannot_be_pressed(window, modality, qtbot):
    dialog = _modal(window, modality, qtbot)
    with pytest.raises(AssertionError, match="behind the modal window"):
        press.click(window.button)
    with pytest.raises(AssertionError, match="behind the modal window"):
        press.type_into(window.first, "x")
    assert window.pressed == [] and window.first.text() == ""
    press.type_into(dialog.field, "in the dialog")  # the dialog itself is reachable
    assert dialog.field.text() == "in the dialog"
    dialog.hide()
    press.click(window.button)
    assert window.pressed == ["Go"]


def test_a_window_modal_dialog_leaves_other_windows_reachable(window, qtbot):
    other = QWidget()
    other.setLayout(QVBoxLayout())
    other.button = QPushButton("Other")
    other.layout().addWidget(other.button)
    qtbot.addWidget(other)
    other.show()
    qtbot.waitExposed(other)
    _modal(window, Qt.WindowModality.WindowModal, qtbot)
    press.click(other.button)  # not blocked: the dialog is modal to the desk only


def test_keys_go_to_the_field_that_has_the_keyboard(window):
    press.type_into(window.first, "typed")
    with pytest.raises(AssertionError, match="does not have the keyboard"):
        press.enter(window.second)  # the keys would go to the first field
    with pytest.raises(AssertionError, match="does not have the keyboard"):
        press.key(window.second, Qt.Key.Key_A)
    assert window.second.text() == ""
    press.key(window, Qt.Key.Key_B)  # the window's keys: into its focused field
    assert window.first.text() == "typedb"
    press.tab_to(window.second)  # reached by Tab, as without a mouse
    press.key(window.second, Qt.Key.Key_C)
    assert window.second.text() == "c" and window.first.text() == "typedb"


def test_choose_opens_the_list_and_picks_by_keyboard(window):
    press.choose(window.combo, "three")
    assert window.combo.currentText() == "three"
    with pytest.raises(AssertionError, match="offers no"):
        press.choose(window.combo, "four")


def test_answer_later_says_when_no_box_came():
    answer = press.answer_later("replace it?", "Yes", timeout=0.2)
    from PySide6.QtTest import QTest

    QTest.qWait(400)
    with pytest.raises(AssertionError, match="no message box"):
        answer.check()


def test_answer_later_answers_the_box(window):
    answer = press.answer_later("replace it?", "Yes")
    box = QMessageBox(
        QMessageBox.Icon.Question,
        "Save",
        "a.csv exists: replace it?",
        QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
        window,
    )
    QTimer.singleShot(5000, box.close)  # never hangs the run, should the answer not come
    assert box.exec() == QMessageBox.StandardButton.Yes
    answer.check()
