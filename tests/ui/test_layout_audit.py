"""The layout audit (tests/ui/layout_audit.py) over every window and dialog of PayDesk (the
states of tests/ui/layout_states/), on a screen of 1280×800 and one of 1024×768 in English,
and on the screen of 1024×768 in the pseudo-language (paydesk/i18n.py's ``qps``: every
translated word accented, 40% longer and bracketed: what a longer language would cut); and
the audit's own checks, each shown to find what it is for. The states find what they press
by its place, role or object name, or by ``_("English words")``, so they run in any language.

Qt's offscreen platform has one screen of its default size unless told otherwise (a
configuration file, read once when the application starts), so each screen size runs the
states in a PayDesk test process of its own. To look at what it finds, run one size by
hand (screen.json as ``screen_config`` writes it; PAYDESK_AUDIT_LANGUAGE=qps for the
pseudo-language); PAYDESK_AUDIT_SHOTS=<folder> saves a picture of each state there:

    QT_QPA_PLATFORM=offscreen:configfile=screen.json PAYDESK_AUDIT_SCREEN=1024x768 \\
        PAYDESK_AUDIT_LANGUAGE=qps .venv/bin/python -m pytest tests/ui/layout_states/items.py \\
        tests/ui/layout_states/main_window.py tests/ui/layout_states/windows.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtGui import QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from paydesk.ui.elided import ElidedLabel
from paydesk.ui.field_message import FieldMessage, add_field_row
from paydesk.ui.table import tips_for_cut_text
from tests.ui.layout_audit import EXCEPTIONS, audit, moved, settle

ROOT = Path(__file__).resolve().parents[2]
# the states' modules (not named test_*: the suite's own run, on Qt's default screen, leaves
# them to this test)
STATES = sorted(
    str(p)
    for p in Path(__file__).with_name("layout_states").glob("*.py")
    if p.stem not in ("__init__", "conftest", "reach")
)
SCREENS = ("1280x800", "1024x768")
# (screen, language): English on both screens, the pseudo-language on the smaller
RUNS = [*((size, "en") for size in SCREENS), ("1024x768", "qps")]


def screen_config(size: str, folder: Path) -> Path:
    width, height = (int(n) for n in size.split("x"))
    config = folder / f"screen-{size}.json"
    config.write_text(
        json.dumps(
            {
                "screens": [
                    {
                        "name": "Screen",
                        "x": 0,
                        "y": 0,
                        "width": width,
                        "height": height,
                        "logicalDpi": 96,
                        "logicalBaseDpi": 96,
                        "dpr": 1,
                    }
                ]
            }
        )
    )
    return config


@pytest.mark.slow  # about 35-60 s each: ./dev test starts them first
@pytest.mark.parametrize(("size", "language"), RUNS, ids=[*SCREENS, "1024x768-pseudo"])
def test_every_window_on_a_screen_of(size, language, tmp_path):
    """Every state of layout_states/ on one screen of ``size``: its report is this test's
    failure, one finding a line (the window, the widget, its text, the sizes). Also in the
    pseudo-language (paydesk/i18n.py: every translated word 40% longer and accented), on
    the smaller screen: what another language's longer words would cut."""
    env = dict(
        os.environ,
        QT_QPA_PLATFORM=f"offscreen:configfile={screen_config(size, tmp_path)}",
        PAYDESK_AUDIT_SCREEN=size,
        PAYDESK_AUDIT_LANGUAGE=language,
    )
    done = subprocess.run(
        [sys.executable, "-m", "pytest", *STATES, "-q", "-p", "no:xdist", "-p", "no:cacheprovider"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=280,
    )
    assert done.returncode == 0, done.stdout[-30000:] + done.stderr[-3000:]
    assert " passed" in done.stdout and "skipped" not in done.stdout, done.stdout[-2000:]


# -- each check finds what it is for --------------------------------------------------------


def shown(widget: QWidget, width: int = 400, height: int = 200) -> QWidget:
    widget.setObjectName(widget.objectName() or "audited")
    widget.resize(width, height)
    widget.show()
    settle()
    return widget


def checks_of(window: QWidget) -> set[str]:
    return {f.check for f in audit(window)}


def test_a_label_too_small_for_its_text_is_cut(qtbot):
    window = QWidget()
    qtbot.addWidget(window)
    label = QLabel("Keys checked: some do not work", window)
    label.setObjectName("small-label")
    label.setGeometry(10, 10, 60, 12)
    found = audit(shown(window))
    assert [(f.check, f.text) for f in found] == [("cut", "Keys checked: some do not work")]
    assert "#small-label" in found[0].widget and "60×12" in found[0].sizes


def test_a_wrapped_label_too_short_is_cut_and_one_tall_enough_is_not(qtbot):
    window = QWidget()
    qtbot.addWidget(window)
    text = "The family's dashboard webhook secret; leave empty when the service signs."
    short = QLabel(text, window)
    short.setWordWrap(True)
    short.setGeometry(0, 0, 120, 20)
    tall = QLabel(text, window)
    tall.setWordWrap(True)
    tall.setGeometry(200, 0, 120, tall.heightForWidth(120))
    found = audit(shown(window))
    assert [f.check for f in found] == ["cut"] and "needs" in found[0].sizes
    assert "(0, 0)" not in found[0].sizes and found[0].text == text


def test_an_elided_label_passes_only_with_its_whole_text_in_the_tooltip(qtbot):
    window = QWidget()
    qtbot.addWidget(window)
    label = ElidedLabel("Profile Østergaard & Sønners Kaffebrænderi saved", window)
    label.setGeometry(0, 0, 90, label.sizeHint().height())
    shown(window)
    assert label.elided() and label.toolTip() == label.text()
    assert audit(window) == []
    label.setGeometry(0, 0, label.sizeHint().width(), label.sizeHint().height())
    settle()
    assert not label.elided() and label.toolTip() == ""


def test_a_button_too_narrow_and_a_field_squashed_are_found(qtbot):
    window = QWidget()
    qtbot.addWidget(window)
    button = QPushButton("Save receipt as PDF…", window)
    button.setGeometry(0, 0, 60, 30)
    field = QLineEdit(window)
    field.setGeometry(0, 40, 200, 8)
    found = audit(shown(window))
    assert ("cut", "Save receipt as PDF…") in {(f.check, f.text) for f in found}
    assert any(f.check == "squashed" and "QLineEdit" in f.widget for f in found)


def test_widgets_on_top_of_each_other_or_out_of_their_parent_are_found(qtbot):
    window = QWidget()
    qtbot.addWidget(window)
    QPushButton("Sell", window).setGeometry(10, 10, 100, 30)
    QPushButton("New sale", window).setGeometry(60, 20, 100, 30)
    QPushButton("Close", window).setGeometry(380, 10, 100, 30)  # half out of the window
    assert checks_of(shown(window)) == {"overlap", "outside"}


def test_the_watermark_may_lie_under_the_panel(qtbot):
    from paydesk.ui.links.watermark import Watermark

    window = QWidget()
    qtbot.addWidget(window)
    QPushButton("Copy link", window).setGeometry(10, 10, 100, 30)
    Watermark(window).setGeometry(0, 0, 400, 200)
    assert audit(shown(window)) == []
    assert all(e.widget in ("*",) or _named_in_the_product(e.widget) for e in EXCEPTIONS)


def _named_in_the_product(name: str) -> bool:
    source = ROOT / "desktop" / "paydesk" / "ui"
    return any(f'"{name}"' in path.read_text(encoding="utf-8") for path in source.rglob("*.py"))


def test_a_window_larger_than_its_screen_is_found(qtbot):
    window = QWidget()
    qtbot.addWidget(window)
    area = window.screen().availableGeometry()
    inside = QLabel("x")
    inside.setMinimumSize(area.width() + 50, 10)
    QVBoxLayout(window).addWidget(inside)
    found = audit(shown(window, area.width() + 60, 100))
    assert {f.check for f in found} == {"screen"}, found
    assert any("cannot be made smaller" in f.sizes and "held by QLabel" in f.sizes for f in found), found


def test_a_cut_cell_passes_only_with_a_tooltip(qtbot):
    model = QStandardItemModel(1, 2)
    model.setItem(0, 0, QStandardItem("maximiliane.wolfeschlegelsteinhausen@example.com"))
    model.setItem(0, 1, QStandardItem("GBP 25.00"))
    view = QTableView()
    qtbot.addWidget(view)
    view.setModel(model)
    view.setColumnWidth(0, 80)
    view.setWordWrap(False)
    shown(view, 400, 150)
    found = audit(view)
    assert [(f.check, f.text) for f in found] == [("cut", "maximiliane.wolfeschlegelsteinhausen@example.com")]
    tips_for_cut_text(view)  # the whole text, on the mouse resting on it
    assert audit(view) == []


def test_a_message_that_moves_the_fields_below_is_found(qtbot):
    def form_with(message: QLabel) -> tuple[QWidget, QLineEdit]:
        window = QWidget()
        qtbot.addWidget(window)
        column = QVBoxLayout(window)
        amount = QLineEdit()
        column.addWidget(amount)
        column.addWidget(message)
        below = QLineEdit()
        below.setObjectName("below")
        column.addWidget(below)
        column.addStretch(1)
        shown(window)
        return window, message

    hidden = QLabel("Whole units only")  # a label shown when there is something to say
    hidden.hide()
    window, message = form_with(hidden)
    found = moved(window, message.show, [message], "the message appeared")
    assert found and any("#below" in f.widget for f in found)
    kept = FieldMessage("amount")  # its line kept, shown or not
    window, message = form_with(kept)
    assert moved(window, lambda: kept.say("Whole units only"), [kept]) == []
    assert moved(window, lambda: kept.say(None), [kept]) == []


def test_field_rows_keep_their_messages_room(qtbot):
    window = QWidget()
    qtbot.addWidget(window)
    form = QFormLayout(window)
    first = QLineEdit()
    message = add_field_row(form, "&Amount", first, "amount")
    second = QLineEdit()
    add_field_row(form, "&Title", second, "title")
    shown(window, 300, 200)
    top = second.geometry().top()
    message.say("Whole units only, digits 0-9 (the service takes no decimals)")
    settle()
    assert second.geometry().top() == top and message.isVisible()
    assert message.elided() and message.toolTip() == message.text()
    assert message.accessibleName() == message.text()


def test_two_line_messages_wrap_within_their_room(qtbot):
    window = QWidget()
    qtbot.addWidget(window)
    row = QHBoxLayout(window)
    message = FieldMessage("last4", lines=2)
    row.addWidget(message)
    shown(window, 300, 80)
    message.say("That is not the end of 441944******3952: type its last four digits")
    settle()
    lines, cut = message.shown_lines()
    assert len(lines) == 2 and not cut and " ".join(lines) == message.text()
    message.say("That is not the end of the card: " + "type its last four digits " * 6)
    settle()
    assert message.shown_lines()[1] and message.toolTip() == message.text()


def test_the_qt_layout_of_a_label_row_is_known(qtbot):
    """A caption and its field in a row, wide enough: nothing found (the audit does not
    report what is right)."""
    window = QWidget()
    qtbot.addWidget(window)
    row = QHBoxLayout(window)
    row.addWidget(QLabel("Look up:"))
    row.addWidget(QLineEdit(), 1)
    row.addWidget(QPushButton("Look up"))
    assert audit(shown(window, 500, 60)) == []


def test_a_pane_scrolled_sideways_is_found_naming_what_it_hides(qtbot):
    """The Transactions details pane at 1024 px: its widget wider than the scroll area, the
    state and the Copy buttons past its right edge, behind a horizontal scroll bar."""
    from PySide6.QtWidgets import QScrollArea

    pane = QWidget()
    row = QHBoxLayout(pane)
    row.addWidget(QLabel("Reference:"))
    row.addWidget(QLabel("maximiliane.wolfeschlegelsteinhausen@example.com"))
    row.addWidget(QPushButton("Copy reference"))
    area = QScrollArea()
    area.setObjectName("details-area")
    area.setWidgetResizable(True)
    area.setWidget(pane)
    qtbot.addWidget(area)
    found = audit(shown(area, 260, 120))
    assert [f.check for f in found] == ["sideways"], found
    assert "Copy reference" in found[0].text and "Reference:" not in found[0].text
    assert "scrolled sideways with a scroll bar" in found[0].sizes
    area.resize(pane.minimumSizeHint().width() + 40, 120)  # room for it all: nothing
    assert audit(shown(area, area.width(), 120)) == []


def test_a_table_past_its_view_is_found_and_fitted_columns_pass(qtbot):
    from paydesk.ui.table import fit_columns

    model = QStandardItemModel(1, 4)
    model.setHorizontalHeaderLabels(["Time", "Title", "Amount", "Reference"])
    for column, text in enumerate(("28 Dec 2026 23:58", "Annual membership", "GBP 25.00", "SBX-261127-CJHQ3R-0001QW")):
        model.setItem(0, column, QStandardItem(text))
    view = QTableView()
    view.setObjectName("open-sales")
    qtbot.addWidget(view)
    view.setModel(model)
    for column in range(4):
        view.setColumnWidth(column, 150)
    found = audit(shown(view, 520, 150))
    assert [(f.check, f.text) for f in found if f.check == "sideways"] == [("sideways", "Reference")], found
    fit_columns(view, ("28 Dec 2026 23:58", "", "GBP 25.00", "SBX-261127-CJHQ3R-0001QW"), 1)
    tips_for_cut_text(view)
    settle()
    assert [f for f in audit(view) if f.check == "sideways"] == []
    reference = view.visualRect(model.index(0, 3))
    assert view.viewport().rect().contains(reference)


def test_a_listed_exception_may_scroll_sideways(qtbot):
    from tests.ui.layout_audit import Allowed

    view = QTableView()
    view.setObjectName("wide-ledger")
    qtbot.addWidget(view)
    model = QStandardItemModel(1, 8)
    view.setModel(model)
    shown(view, 300, 150)
    assert {f.check for f in audit(view)} == {"sideways"}
    meant = Allowed("sideways", "wide-ledger", "wide-ledger", "its columns are meant to scroll")
    assert audit(view, exceptions=(meant,)) == []


def test_a_wrapped_label_breaks_a_long_address_and_a_down_scroll_area_never_goes_sideways(qtbot):
    """WrappedLabel (ui/elided.py) breaks inside a word longer than its line; DownScrollArea
    (ui/scrolled.py) is never made narrower than its widget's least width, so a splitter
    stops there rather than hide the widget's side."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QSplitter

    from paydesk.ui.elided import WrappedLabel
    from paydesk.ui.scrolled import DownScrollArea

    pane = QWidget()
    column = QVBoxLayout(pane)
    address = WrappedLabel("maximiliane.wolfeschlegelsteinhausen@example.com")
    column.addWidget(address)
    column.addWidget(QPushButton("Copy service reference"))
    split = QSplitter(Qt.Orientation.Horizontal)
    split.setObjectName("split")
    qtbot.addWidget(split)
    split.addWidget(QTableView())
    area = DownScrollArea(pane, "Details")
    split.addWidget(area)
    shown(split, 400, 300)
    split.setSizes([390, 10])  # dragged as far as it goes
    settle()
    assert area.width() >= pane.minimumSizeHint().width()
    assert address.width() < address.full_width() and len(address.shown_lines()[0]) >= 2
    assert [f for f in audit(split) if f.check in ("sideways", "cut")] == []
    address.setFixedHeight(address.fontMetrics().height())  # one line of its two: cut
    settle()
    assert [f.check for f in audit(split)] == ["cut"]


def test_a_fitted_label_makes_its_letters_smaller_where_narrow_and_is_not_cut(qtbot):
    from PySide6.QtGui import QFont

    from paydesk.ui.fitted import LEAST_POINTS, FittedLabel

    window = QWidget()
    qtbot.addWidget(window)
    font = QFont()
    font.setPointSize(20)
    label = FittedLabel(font, window)
    label.setText("[ŴÁÎŢÎÑĜ ƑÖŔ ƤÅÝMÉÑŢ·~~~~~~]")
    label.setGeometry(0, 0, 700, 50)
    shown(window, 720, 60)
    assert label.font().pointSize() == 20 and label.text_shown() == label.words
    label.setGeometry(0, 0, 260, 50)
    settle()
    assert LEAST_POINTS <= label.font().pointSize() < 20 and label.text_shown() == label.words
    assert checks_of(window) == set()
    label.setGeometry(0, 0, 90, 50)  # narrower than its words at the least size: elided, said whole on hover
    settle()
    assert label.text_shown() != label.words and label.toolTip() == label.words
    assert checks_of(window) == set()
