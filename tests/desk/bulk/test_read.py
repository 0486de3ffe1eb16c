"""Reading a bulk file as the issue's complaints ask: CSV with or without a BOM, comma or
semicolon, an empty last row, quoted fields; XLSX with numbers, dates and formulas shown as
the spreadsheet shows them; and a file that is not a table said so, whole."""

from __future__ import annotations

from datetime import datetime

import pytest

from paydesk.desk.bulk.read import cell_text, read_sheet
from paydesk.desk.bulk.sheet import MAX_ROWS, BulkFileError

from .files import HEADERS, row, write_csv, write_xlsx


@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig"])
@pytest.mark.parametrize("delimiter", [",", ";"])
def test_csv_with_or_without_bom_comma_or_semicolon(tmp_path, encoding, delimiter):
    path = write_csv(
        tmp_path / "fees.csv", [row(1, **{"Last name": "Brontë"}), row(2)], delimiter=delimiter, encoding=encoding
    )
    sheet = read_sheet(path)
    assert sheet.file_name == "fees.csv"
    assert sheet.headers == HEADERS  # no BOM glued to the first header
    assert [n for n, _ in sheet.rows] == [2, 3]
    assert sheet.rows[0][1] == row(1, **{"Last name": "Brontë"})
    assert sheet.blank == 0


def test_semicolon_file_with_decimal_commas_in_quotes(tmp_path):
    path = tmp_path / "eu.csv"
    path.write_text('Amount;Title;E-mail\n25;"Fees; term 1, 2026";a@example.com\n', "utf-8")
    sheet = read_sheet(path)
    assert sheet.headers == ["Amount", "Title", "E-mail"]
    assert sheet.rows == [(2, ["25", "Fees; term 1, 2026", "a@example.com"])]


def test_windows_1252_file_falls_back(tmp_path):
    path = write_csv(tmp_path / "old.csv", [row(1, **{"First name": "Zoë"})], encoding="cp1252")
    assert read_sheet(path).rows[0][1][3] == "Zoë"


def test_empty_last_rows_are_ignored_and_counted(tmp_path):
    """Razorpay's complaint: an empty last row failed the whole file with no reason."""
    path = write_csv(tmp_path / "f.csv", [row(1), [""] * 7, row(2), [""] * 7])
    path.write_bytes(path.read_bytes() + b"\r\n\r\n")  # and bare line ends after it
    sheet = read_sheet(path)
    assert [n for n, _ in sheet.rows] == [2, 4]  # file row numbers, as a spreadsheet shows
    assert sheet.blank == 4


def test_quoted_line_break_stays_in_its_cell(tmp_path):
    path = write_csv(tmp_path / "f.csv", [row(1, Title="Two\nlines"), row(2)])
    sheet = read_sheet(path)
    assert sheet.rows[0][1][5] == "Two\nlines"
    assert [n for n, _ in sheet.rows] == [2, 3]  # a record is one spreadsheet row


def test_unnamed_and_extra_columns_get_a_letter(tmp_path):
    path = tmp_path / "f.csv"
    path.write_text("Amount,,Title\n1,x,t,overflow\n", "utf-8")
    sheet = read_sheet(path)
    assert sheet.headers == ["Amount", "Column B", "Title", "Column D"]
    assert sheet.rows == [(2, ["1", "x", "t", "overflow"])]


def test_short_rows_are_padded(tmp_path):
    path = tmp_path / "f.csv"
    path.write_text("Amount,Currency,Title\n1\n", "utf-8")
    assert read_sheet(path).rows == [(2, ["1", "", ""])]


@pytest.mark.parametrize(
    "content, words",
    [
        (b"", "is empty"),
        (b"\r\n,,\r\n", "is empty"),
        (b"Amount,Currency\r\n", "no rows under its header"),
        (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 100, "old Excel file"),
    ],
)
def test_a_file_that_is_not_a_table_is_said_whole(tmp_path, content, words):
    path = tmp_path / "f.csv"
    path.write_bytes(content)
    with pytest.raises(BulkFileError) as raised:
        read_sheet(path)
    assert words in raised.value.message


def test_damaged_workbook_and_missing_file(tmp_path):
    bad = tmp_path / "f.xlsx"
    bad.write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(BulkFileError, match="could not be read as an Excel workbook"):
        read_sheet(bad)
    with pytest.raises(BulkFileError, match="Cannot open"):
        read_sheet(tmp_path / "gone.csv")


def test_too_many_rows(tmp_path):
    path = tmp_path / "big.csv"
    path.write_text("Amount\n" + "1\n" * (MAX_ROWS + 1), "utf-8")
    with pytest.raises(BulkFileError, match="more than 50,000 rows"):
        read_sheet(path)
    path.write_text("Amount\n" + "1\n" * MAX_ROWS, "utf-8")
    assert len(read_sheet(path).rows) == MAX_ROWS


def test_xlsx_values_as_the_spreadsheet_shows_them(tmp_path):
    when = datetime(2026, 11, 26)
    path = write_xlsx(
        tmp_path / "fees.xlsx",
        [
            [25, "GBP", "a@example.com", "Ada", "Lovelace", when, 1234567890123456],
            [30.0, "USD", "b@example.com", '=HYPERLINK("http://x","Bob")', "Smith", datetime(2026, 1, 2, 9, 30), 123],
            [None] * 7,
            [12.5, "GBP", "c@example.com", "Cy", "Jones", "Fees", "00123"],
        ],
        text_columns=(6,),
    )
    sheet = read_sheet(path)
    assert sheet.headers == HEADERS
    assert [n for n, _ in sheet.rows] == [2, 3, 5] and sheet.blank == 1
    first, second, fourth = (cells for _, cells in sheet.rows)
    assert first[0] == "25" and first[5] == "2026-11-26"
    assert first[6] == "1.23457E+15"  # what Excel shows: the digits past the 15th are gone
    assert second[0] == "30"  # a float that is whole: digits, no ".0"
    assert second[3] == '=HYPERLINK("http://x","Bob")'  # a formula as its text
    assert second[5] == "2026-01-02 09:30:00"
    assert fourth[0] == "12.5" and fourth[6] == "00123"  # a Text cell keeps its zeros
    # the cells the workbook holds as numbers (not the dates, not the Text cell)
    assert sheet.numbers == {(2, 0), (2, 6), (3, 0), (3, 6), (5, 0)}


def test_workbook_named_csv_is_read_as_a_workbook(tmp_path):
    path = write_xlsx(tmp_path / "fees.xlsx", [[25, "GBP"]], headers=["Amount", "Currency"])
    renamed = path.rename(tmp_path / "fees.csv")
    assert read_sheet(renamed).rows == [(2, ["25", "GBP"])]


@pytest.mark.parametrize(
    "value, shown",
    [
        (0, "0"),
        (-7, "-7"),
        (25.0, "25"),
        (0.1 + 0.2, "0.3"),
        (123456789012345, "123456789012345"),
        (1234567890123456, "1.23457E+15"),
        (1e20, "1E+20"),
        (True, "TRUE"),
        (None, ""),
    ],
)
def test_cell_text(value, shown):
    assert cell_text(value) == shown


def test_excel_sep_line_names_the_delimiter(tmp_path):
    path = tmp_path / "eu.csv"
    path.write_bytes(b"sep=;\r\nAmount;Title\r\n25;Fees, autumn\r\n")
    sheet = read_sheet(path)
    assert sheet.headers == ["Amount", "Title"]
    assert sheet.rows == [(2, ["25", "Fees, autumn"])]  # Excel hides the sep line: header row 1


def test_workbook_with_a_wrong_used_range_is_read_whole(tmp_path):
    """Some programs write a dimension of A1:A1; read-only mode would then see one cell."""
    import zipfile

    path = write_xlsx(tmp_path / "f.xlsx", [row(1), row(2)])
    damaged = tmp_path / "dim.xlsx"
    with zipfile.ZipFile(path) as source, zipfile.ZipFile(damaged, "w") as target:
        for item in source.infolist():
            data = source.read(item.filename)
            if item.filename == "xl/worksheets/sheet1.xml":
                assert b'<dimension ref="A1:G3" />' in data
                data = data.replace(b'<dimension ref="A1:G3" />', b'<dimension ref="A1:A1" />')
            target.writestr(item, data)
    sheet = read_sheet(damaged)
    assert sheet.headers == HEADERS
    assert [cells for _, cells in sheet.rows] == [row(1), row(2)]


def test_huge_csv_refused_before_reading(tmp_path):
    from paydesk.desk.bulk.read import MAX_CSV_BYTES

    path = tmp_path / "huge.csv"
    with open(path, "wb") as file:
        file.truncate(MAX_CSV_BYTES + 1)  # sparse: nothing written
    with pytest.raises(BulkFileError, match="larger than 64 MB"):
        read_sheet(path)
