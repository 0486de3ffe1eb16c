"""Bulk links as a user makes them, against the real sandbox: the file chosen in the standard
dialog, the columns guessed and changed, every problem said by row and column and fixed in
the grid, the policy, Create N links, progress to the end; a corrected file creating only
what is missing. The service's own call log proves nothing was made twice."""

from __future__ import annotations

from PySide6.QtCore import Qt

from paydesk.ui.bulk.grid import PROBLEM_BACKGROUND
from tests.ui import press
from tests.ui.bulk.conftest import HEADERS, row, write_csv
from tests.ui.test_accessibility import _labels_named_otherwise, _unnamed_focusable


def named_right(window) -> None:
    """Every control named (what a screen reader says), every label by what it shows."""
    assert _unnamed_focusable(window, at_least=3) == []
    assert _labels_named_otherwise(window) == []


def problems(window) -> list[str]:
    model = window.check_step.problems_model
    return [model.data(model.index(i, 0)) for i in range(model.rowCount())]


def cell(window, number: int, field: str):
    model = window.check_step.model
    return next(model.index(i, model.fields.index(field)) for i, r in enumerate(model.rows) if r.number == number)


def test_a_file_is_checked_fixed_in_place_and_created(shop, tmp_path):
    shop.link("SHOP-OLD-1")  # a link made before: its reference is the ledger's
    path = write_csv(
        tmp_path / "term-fees.csv",
        [
            row(2, tx_ref="INV-002"),
            row(3, email="parent3-at-example.com"),
            row(4, tx_ref="INV-004"),
            row(5, tx_ref="INV-004"),  # the same reference twice in the file
            row(6, tx_ref="SHOP-OLD-1"),  # already in the ledger
            row(7, amount="25.50"),  # pence: the service takes whole units
            row(8),
        ],
        delimiter=";",
        bom=True,
        blank_last=True,
    )  # European Excel's CSV, an empty last row
    window = shop.open_bulk()
    assert window.isWindow() and window.windowTitle().startswith("Bulk links")
    named_right(window)
    shop.load(window, path)
    step = window.mapping_step
    assert step.boxes["email"].currentText() == "email"
    assert step.boxes["tx_ref"].currentText() == "tx_ref"
    assert step.boxes["description"].currentText() == "(not in the file)"
    assert step.summary.text() == "term-fees.csv: 7 rows, 1 blank row ignored"
    assert step.preview_model.rowCount() == 5
    named_right(window)

    shop.check(window)
    said = problems(window)
    assert "Row 3, email: Not an e-mail address" in said
    assert any(p.startswith("Row 4, tx_ref: The same reference is in row 5") for p in said)
    assert any(p.startswith("Row 5, tx_ref: The same reference is in row 4") for p in said)
    assert "Row 6, tx_ref: A link with this reference is already in the ledger" in said
    assert any(p.startswith("Row 7, amount:") for p in said)
    check = window.check_step
    assert check.counts.text() == "Rows: 2 valid, 5 with problems, 1 blank ignored"
    bad = cell(window, 3, "email")
    assert check.model.data(bad, Qt.ItemDataRole.ToolTipRole) == "Not an e-mail address"
    assert check.model.data(bad, Qt.ItemDataRole.BackgroundRole).color() == PROBLEM_BACKGROUND
    assert check.create_links.text() == "Create 2 links"
    named_right(window)

    # a problem chosen in the list takes the grid to its cell
    listed = check.problems
    at = said.index("Row 3, email: Not an e-mail address")
    press.click(listed.viewport(), pos=listed.visualRect(listed.model().index(at, 0)).center())
    assert check.grid.currentIndex() == bad
    # fixed in place: each edit checks the rows again
    shop.edit_cell(window, 3, "email", "parent3@example.com")
    shop.edit_cell(window, 5, "tx_ref", "INV-005")
    shop.edit_cell(window, 6, "tx_ref", "INV-006")
    # a reference typed in the grid is asked of the ledger too
    shop.edit_cell(window, 8, "tx_ref", "SHOP-OLD-1")
    assert "Row 8, tx_ref: A link with this reference is already in the ledger" in problems(window)
    shop.edit_cell(window, 8, "tx_ref", "INV-008")
    said = problems(window)
    assert [p for p in said if p.startswith(("Row 3", "Row 4", "Row 5", "Row 6", "Row 8"))] == []
    assert check.counts.text() == "Rows: 6 valid, 1 with problems, 1 blank ignored"

    # all or nothing refuses while a row has a problem
    press.click(check.all)
    assert not check.create_links.isEnabled()
    assert "fix the 1 row with problems first" in check.why.text()
    press.click(check.skip)
    assert check.create_links.isEnabled() and check.create_links.text() == "Create 6 links"

    before = shop.creates()
    shop.create(window)
    named_right(window)
    outcome = shop.wait_done(window)
    assert outcome.startswith("Done: 6 links created, 0 refused")
    assert shop.creates() - before == 6
    for ref in ("INV-002", "INV-004", "INV-005", "INV-006", "INV-008"):
        assert shop.in_ledger(ref) is not None, ref
    bar = window.progress_step.bar
    assert bar.value() == bar.maximum() == 6


def test_a_corrected_file_creates_only_the_rows_missing(shop, tmp_path):
    rows = [row(2), row(3, email="nobody"), row(4)]  # no references: the batch makes them
    path = write_csv(tmp_path / "club.csv", rows)
    window = shop.open_bulk()
    shop.load(window, path)
    shop.check(window)
    assert window.check_step.create_links.text() == "Create 2 links"
    before = shop.creates()
    shop.create(window)
    assert shop.wait_done(window).startswith("Done: 2 links created")
    batch = window.batch
    assert batch.prefix.startswith(f"SHOP-{shop.session.installation_id}-")  # the controller's
    assert shop.in_ledger(batch.ref(2)) is not None and shop.in_ledger(batch.ref(4)) is not None
    assert shop.in_ledger(batch.ref(3)) is None  # skipped

    # the same file, corrected, loaded again: it joins its batch
    write_csv(path, [row(2), row(3), row(4)])
    press.click(window.progress_step.again)
    shop.load(window, path)
    shop.check(window)
    check = window.check_step
    assert "2 of them were sent from this file before" in check.counts.text()
    assert check.create_links.text() == "Create 1 link"
    shop.create(window)
    # what this file created, and what was created before it: not 3 as if it made them all
    assert shop.wait_done(window) == "Done: 1 created now, 2 before, 0 refused by the service"
    assert window.progress_step.figures.text() == "Created 3, refused 0, left 0"
    assert window.batch.id == batch.id
    assert shop.creates() - before == 3  # row 2 and 4 not again
    assert shop.in_ledger(batch.ref(3)) is not None

    # the same file with a row inserted at the top: its rows sent before moved. Refused, said
    # by the file choice, nothing written or sent
    write_csv(path, [row(9), row(2), row(3), row(4)])
    press.click(window.progress_step.again)
    shop.load(window, path)
    shop.check(window)
    press.click(check.create_links)
    message = window.file_step.message
    shop.loop.until(
        lambda: window.stack.currentWidget() is window.file_step and message.isVisible(),
        message="the refusal by the file choice",
    )
    assert message.text().startswith(
        "Row 2 differs from the row sent before (amount 12 → 19, e-mail parent2@example.com → parent9@example.com"
    )
    assert "save the file under another name to make a new batch" in message.text()
    assert shop.creates() - before == 3
    assert shop.loop.run(shop.desk.batches.batch(batch.id)).rows == 3  # nothing written


def test_amounts_with_thousands_separators_say_what_to_type(shop, tmp_path):
    # as finance's spreadsheets write fifteen hundred: English, German, French, with pence
    path = write_csv(
        tmp_path / "separators.csv",
        [
            row(2, amount="1,500"),
            row(3, amount="1.500"),
            row(4, amount="1\u00a0500"),
            row(5, amount="1,500.00"),
            row(6, amount="25.50"),
            row(7, amount="1500"),
        ],
    )
    window = shop.open_bulk()
    shop.load(window, path)
    shop.check(window)
    assert problems(window) == [
        "Row 2, amount: No thousands separators: type 1500",
        "Row 3, amount: No thousands separators: type 1500",
        "Row 4, amount: No thousands separators: type 1500",
        "Row 5, amount: No thousands separators or decimals: type 1500",
        "Row 6, amount: Whole units only, digits 0-9 (the service takes no decimals)",
    ]
    check = window.check_step
    assert check.model.data(cell(window, 2, "amount"), Qt.ItemDataRole.ToolTipRole) == (
        "No thousands separators: type 1500"
    )
    shop.edit_cell(window, 2, "amount", "1500")  # typed as it says: the row is valid
    assert not [p for p in problems(window) if p.startswith("Row 2,")]
    assert check.counts.text() == "Rows: 2 valid, 4 with problems"


def test_columns_chosen_by_the_user_and_extra_fields(shop, tmp_path):
    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    sheet.append(["Amount", "CCY", "E-mail address", "First name", "Payer", "Subject", "Cost centre"])
    sheet.append([40, "GBP", "ada@example.com", "Ada", "Lovelace", "Lessons", "M-01"])
    sheet.append([12, "USD", "bob@example.com", "Bob", "Babbage", "Books", "M-02"])
    path = tmp_path / "lessons.xlsx"
    book.save(path)
    window = shop.open_bulk()
    shop.load(window, path)
    step = window.mapping_step
    assert step.boxes["amount"].currentText() == "Amount"
    assert step.boxes["currency"].currentText() == "CCY"
    assert step.boxes["last_name"].currentText() == "(not in the file)"
    press.click(window.next)  # a required field has no column: said, not checked
    shop.loop.until(lambda: step.message.isVisible(), message="the missing column said")
    assert step.message.text() == "Choose the column of: last_name"
    assert window.stack.currentWidget() is step
    press.choose(step.boxes["last_name"], "Payer")
    extra = next(check for index, check in step.extras if index == 6)
    assert extra.text() == "meta.Cost centre" and not extra.isChecked()
    press.click(extra)
    assert step.mapping()["meta.Cost centre"] == 6
    assert "→ last_name" in step.preview_model.headerData(4, Qt.Orientation.Horizontal)
    shop.check(window)
    check = window.check_step
    assert "meta.Cost centre" in check.model.fields
    assert problems(window) == []
    assert check.model.data(cell(window, 2, "amount")) == "40"  # a number, as digits
    shop.create(window)
    assert shop.wait_done(window).startswith("Done: 2 links created")


def extras_laid_out(step) -> list[tuple[str, int, int]]:
    """The extra fields' check boxes a user sees: (text, left, top) in the group's
    coordinates, in reading order down each column."""
    shown = [check for _, check in step.extras if check.isVisible()]
    for check in shown:
        assert step.extras_box.contentsRect().contains(check.geometry()), f"{check.text()} is outside its group"
    placed = [(c.text(), c.geometry().left(), c.geometry().top()) for c in shown]
    return sorted(placed, key=lambda p: (p[1], p[2]))


def assert_aligned(placed, texts) -> None:
    """Each column's boxes start at the same x, one under the other at the same step with
    no hole, the first at the top of the group; read down each column they are ``texts``."""
    assert [text for text, _, _ in placed] == texts
    columns = sorted({left for _, left, _ in placed})
    tops = [top for _, _, top in placed]
    step = tops[1] - tops[0] if len(tops) > 1 else 0
    for left in columns:
        mine = [top for _, x, top in placed if x == left]
        assert mine == [tops[0] + i * step for i in range(len(mine))], (left, mine)
    assert len(columns) == 1 or len({t for _, x, t in placed if x == columns[0]}) >= len(
        [p for p in placed if p[1] == columns[-1]]
    )  # the first column is never the shorter


def test_the_extra_fields_check_boxes_are_aligned(shop, tmp_path):
    headers = [*HEADERS, "meta.invoice", "Cost centre", "meta.class", "Notes"]
    rows = [{**row(2), "meta.invoice": "F-1", "Cost centre": "M-01", "meta.class": "4B", "Notes": "paid late"}]
    path = write_csv(tmp_path / "extras.csv", rows, headers=headers)
    window = shop.open_bulk()  # at the size it opens with
    shop.load(window, path)
    step = window.mapping_step
    assert step.extras_box.isVisible()
    assert_aligned(extras_laid_out(step), ["meta.invoice", "meta.Cost centre", "meta.class", "meta.Notes"])
    # a column chosen as a field leaves the extras: the others close up, still aligned
    press.choose(step.boxes["description"], "Notes")
    shop.loop.until(lambda: len(extras_laid_out(step)) == 3, message="Notes no extra field")
    assert_aligned(extras_laid_out(step), ["meta.invoice", "meta.Cost centre", "meta.class"])
    # ticked as a user ticks one: by a click on it
    cost = next(check for _, check in step.extras if check.text() == "meta.Cost centre")
    press.click(cost)
    assert cost.isChecked() and step.mapping()["meta.Cost centre"] == 8


def test_many_extra_fields_take_two_aligned_columns(shop, tmp_path):
    extra = [f"meta.f{n:02d}" for n in range(13)]
    path = write_csv(tmp_path / "wide.csv", [{**row(2), **{h: "x" for h in extra}}], headers=[*HEADERS, *extra])
    window = shop.open_bulk()
    shop.load(window, path)
    placed = extras_laid_out(window.mapping_step)
    assert_aligned(placed, extra)
    assert len({left for _, left, _ in placed}) == 2  # 7 down the first column, 6 beside


def test_a_file_that_cannot_be_read_is_said_and_the_template_saved(shop, tmp_path):
    wrong = tmp_path / "photo.xlsx"
    wrong.write_bytes(b"\x89PNG\r\n\x1a\n not a workbook")
    window = shop.open_bulk()
    shop.choose_file(window, wrong)
    message = window.file_step.message
    shop.loop.until(
        lambda: message.isVisible() and message.text().startswith("photo.xlsx:"), message="what is wrong with the file"
    )
    assert window.stack.currentWidget() is window.file_step

    press.click(window.file_step.template)
    shop.loop.until(lambda: press.shown("save-dialog") is not None, message="the save dialog")
    target = tmp_path / "template.csv"
    press.save_as(press.shown("save-dialog"), target)
    shop.loop.until(lambda: "Template saved" in message.text(), message="the template")
    header = target.read_text("utf-8-sig").splitlines()[0]
    assert "amount" in header and "tx_ref" in header


def test_ctrl_shift_b_opens_the_window(shop):
    press.key(shop.window, Qt.Key.Key_B, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    shop.loop.until(lambda: press.shown("bulk-window") is not None, message="Bulk links")


def test_by_the_keyboard_alone(shop, tmp_path):
    """Ctrl+Shift+B, Space on Choose file…, the path and Enter, Space to check, a cell fixed
    by typing over it, Tab to Create and Space."""
    path = write_csv(tmp_path / "keys.csv", [row(2), row(3, email="nobody")])
    press.key(shop.window, Qt.Key.Key_B, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    shop.loop.until(lambda: press.shown("bulk-window") is not None, message="Bulk links")
    window = press.shown("bulk-window")
    shop.loop.until(lambda: window.isActiveWindow(), message="the window active")
    assert window.focusWidget() is window.file_step.choose
    press.key(window.file_step.choose, Qt.Key.Key_Space)
    shop.loop.until(lambda: press.shown("bulk-open-dialog") is not None, message="the dialog")
    press.save_as(press.shown("bulk-open-dialog"), path)
    shop.loop.until(lambda: window.stack.currentWidget() is window.mapping_step, message="the columns")
    shop.loop.until(lambda: window.focusWidget() is window.next, message="Check the rows")
    press.key(window.next, Qt.Key.Key_Space)
    shop.loop.until(lambda: window.stack.currentWidget() is window.check_step, message="the dry run")
    check = window.check_step
    grid = check.grid
    assert window.focusWidget() is grid
    # to the bad cell with the arrow keys, then type over it and Enter
    press.key(grid, Qt.Key.Key_Home, Qt.KeyboardModifier.ControlModifier)
    press.key(grid, Qt.Key.Key_Down)
    for _ in range(check.model.fields.index("email")):
        press.key(grid, Qt.Key.Key_Right)
    assert grid.currentIndex() == cell(window, 3, "email")
    press.key(grid, Qt.Key.Key_F2)
    editor = window.focusWidget()
    press.key(editor, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    signs = {"@": Qt.Key.Key_At, ".": Qt.Key.Key_Period}
    for character in "bob@example.com":  # key by key, where the keyboard is
        press.key(editor, signs.get(character) or Qt.Key(ord(character.upper())))
    press.enter(editor)
    shop.loop.until(lambda: not check.checking and problems(window) == [], message="checked again")
    press.tab_to(check.create_links)
    assert check.create_links.text() == "Create 2 links"
    press.key(check.create_links, Qt.Key.Key_Space)
    shop.loop.until(lambda: window.stack.currentWidget() is window.progress_step, message="the progress")
    assert shop.wait_done(window).startswith("Done: 2 links created")
