"""The dry run (desk/bulk/check.py) for each complaint of the issue: an empty last row,
Excel's 1.23E+15 and lost leading zeros, semicolons and a BOM, formula cells, a reference
twice in the file, one already in the ledger; every field by the link form's rules; and
10,000 rows checked at once."""

from __future__ import annotations

import time
from decimal import Decimal

import pytest

from paydesk.desk.bulk.check import (
    A_FORMULA,
    EXCEL_NUMBER,
    EXCEL_REFERENCE,
    IN_LEDGER,
    NOT_A_NAME,
    BulkRow,
    check_rows,
    known_references,
    references,
    request_of,
)
from paydesk.desk.bulk.mapping import guess_mapping
from paydesk.desk.bulk.read import read_sheet
from paydesk.desk.bulk.sheet import Problem, Sheet
from paydesk.service.models import PaymentRequest

from .files import HEADERS, profile, row, write_csv, write_xlsx


def checked(sheet: Sheet, known=frozenset(), **over) -> list[BulkRow]:
    return check_rows(sheet, guess_mapping(sheet.headers), profile(**over), known_refs=known)


def problems(rows: list[BulkRow]) -> list[tuple[int, str, str]]:
    return [(p.row, p.column, p.message) for r in rows for p in r.problems]


def sheet_of(*rows: list[str], headers=HEADERS) -> Sheet:
    return Sheet("f.csv", list(headers), [(n, list(r)) for n, r in enumerate(rows, start=2)], 0)


def test_valid_rows_have_their_values_by_field(tmp_path):
    path = write_csv(
        tmp_path / "f.csv", [row(1), row(2, Currency="usd", Amount="25.00")], delimiter=";", encoding="utf-8-sig"
    )
    rows = checked(read_sheet(path), callback_url="https://shop.example/cb")
    assert problems(rows) == []
    first, second = rows
    assert first.number == 2 and first.ok
    assert first.values["email"] == "c1@example.com" and first.values["tx_ref"] == "INV-00001"
    assert first.values["description"] == ""  # not in the file: empty, not missing
    assert first.values["callback_url"] == "https://shop.example/cb"  # the profile's default
    assert second.values["currency"] == "USD" and second.values["amount"] == "25"


def test_empty_last_row_fails_nothing(tmp_path):
    path = write_csv(tmp_path / "f.csv", [row(1), row(2), [""] * 7])
    sheet = read_sheet(path)
    rows = checked(sheet)
    assert [r.number for r in rows] == [2, 3] and all(r.ok for r in rows)
    assert sheet.blank == 1


def test_scientific_reference_from_csv_is_refused_with_the_fix():
    rows = checked(sheet_of(row(1, Reference="1.23E+15"), row(2, Reference="4,56789E+11")))
    assert problems(rows) == [(2, "tx_ref", EXCEL_REFERENCE), (3, "tx_ref", EXCEL_REFERENCE)]


def test_references_that_only_look_like_numbers_pass():
    rows = checked(sheet_of(row(1, Reference="7E2"), row(2, Reference="12E345-A"), row(3, Reference="2026.11.26")))
    assert problems(rows) == []


def test_numbers_in_a_workbook_reference_column_are_refused(tmp_path):
    """1.23E+15 and a number that lost its leading zeros: Excel made them numbers; what was
    meant cannot be known, so the row says how to keep the column as text. A Text column
    keeps its zeros and passes."""
    path = write_xlsx(
        tmp_path / "f.xlsx",
        [
            [11, "GBP", "a@example.com", "Ada", "L", "Fees", 1234567890123456],
            [12, "GBP", "b@example.com", "Bo", "L", "Fees", 123],  # typed 00123
            [13, "GBP", "c@example.com", "Cy", "L", "Fees", None],  # no reference: one is made
        ],
    )
    rows = checked(read_sheet(path))
    assert rows[0].values["tx_ref"] == "1.23457E+15"  # shown as Excel shows it
    assert problems(rows) == [(2, "tx_ref", EXCEL_REFERENCE), (3, "tx_ref", EXCEL_REFERENCE)]
    texts = write_xlsx(tmp_path / "t.xlsx", [[11, "GBP", "a@example.com", "Ada", "L", "F", "00123"]], text_columns=(6,))
    rows = checked(read_sheet(texts))
    assert problems(rows) == [] and rows[0].values["tx_ref"] == "00123"


def test_a_fix_typed_in_the_grid_clears_the_excel_mark(tmp_path):
    path = write_xlsx(tmp_path / "f.xlsx", [[11, "GBP", "a@example.com", "Ada", "L", "F", 123]])
    sheet = read_sheet(path)
    assert problems(checked(sheet)) == [(2, "tx_ref", EXCEL_REFERENCE)]
    sheet.edit(2, HEADERS.index("Reference"), "00123")
    rows = checked(sheet)
    assert problems(rows) == [] and rows[0].values["tx_ref"] == "00123"


def test_leading_zeros_in_csv_are_kept(tmp_path):
    path = write_csv(tmp_path / "f.csv", [row(1, Reference="000123")], delimiter=";")
    rows = checked(read_sheet(path))
    assert problems(rows) == [] and rows[0].values["tx_ref"] == "000123"


def test_formula_cells_are_refused(tmp_path):
    hyperlink = '=HYPERLINK("http://evil.example","Click")'
    path = write_xlsx(
        tmp_path / "f.xlsx",
        [
            [11, "GBP", "a@example.com", hyperlink, "L", "Fees", "R-1"],
            [12, "GBP", "b@example.com", "Bo", "@SUM(1+1)", "=1+1", "R-2"],
            ["=5*2", "GBP", "c@example.com", "Cy", "L", "Fees", "R-3"],
        ],
    )
    rows = checked(read_sheet(path))
    found = problems(rows)
    assert (2, "first_name", NOT_A_NAME) in found
    assert (3, "last_name", NOT_A_NAME) in found and (3, "title", A_FORMULA) in found
    assert [(r, c) for r, c, _ in found] == [(2, "first_name"), (3, "last_name"), (3, "title"), (4, "amount")]


def test_duplicates_within_the_file_mark_every_row():
    rows = checked(sheet_of(row(1, Reference="A-1"), row(2), row(3, Reference="A-1"), row(4, Reference="A-1")))
    assert problems(rows) == [
        (2, "tx_ref", "The same reference is in rows 4, 5"),
        (4, "tx_ref", "The same reference is in rows 2, 5"),
        (5, "tx_ref", "The same reference is in rows 2, 4"),
    ]
    assert rows[1].ok


def test_reference_known_to_the_ledger_is_a_problem():
    rows = checked(sheet_of(row(1), row(2)), known=frozenset({"INV-00002"}))
    assert problems(rows) == [(3, "tx_ref", IN_LEDGER)]


async def test_known_references_asks_the_ledger(ledger):
    """On each backend, in chunks: 1,200 references asked, the two the ledger holds found."""
    for ref in ("INV-00007", "INV-01100"):
        await ledger.begin_link(
            "p_bulk",
            "test",
            PaymentRequest(
                amount=Decimal(5), currency="GBP", email="a@example.com", first_name="A", last_name="B", tx_ref=ref
            ),
        )
    await ledger.begin_link(
        "p_other",
        "test",
        PaymentRequest(
            amount=Decimal(5), currency="GBP", email="a@example.com", first_name="A", last_name="B", tx_ref="INV-00008"
        ),
    )
    rows = checked(sheet_of(*(row(n) for n in range(1200))))
    known = await known_references(ledger, "p_bulk", references(rows))
    assert known == {"INV-00007", "INV-01100"}
    assert await known_references(ledger, "p_bulk", []) == set()
    rows = checked(read_sheet_rows(rows), known=known)
    assert [(p.row, p.message) for r in rows for p in r.problems] == [(9, IN_LEDGER), (1102, IN_LEDGER)]


def read_sheet_rows(rows: list[BulkRow]) -> Sheet:
    return sheet_of(*(row(r.number - 2) for r in rows))


@pytest.mark.parametrize(
    "over, column, words",
    [
        ({"Amount": ""}, "amount", "Enter the amount"),
        ({"Amount": "25.50"}, "amount", "Whole units only"),
        ({"Amount": "1,500"}, "amount", "No thousands separators: type 1500"),
        ({"Amount": "1.500"}, "amount", "No thousands separators: type 1500"),
        ({"Amount": "1 500"}, "amount", "No thousands separators: type 1500"),
        ({"Amount": "1,500.00"}, "amount", "No thousands separators or decimals: type 1500"),
        ({"Amount": "0"}, "amount", "Between 1 and 10,000,000"),
        ({"Amount": "10000001"}, "amount", "Between 1 and 10,000,000"),
        ({"Currency": ""}, "currency", "Enter the currency: one of GBP, USD"),
        ({"Currency": "EUR"}, "currency", "Not a currency of this profile (GBP, USD)"),
        ({"E-mail": "not-an-address"}, "email", "Not an e-mail address"),
        ({"E-mail": ""}, "email", "Enter the customer's e-mail"),
        ({"First name": ""}, "first_name", "Enter the customer's first name"),
        ({"Last name": "x" * 101}, "last_name", "At most 100 characters"),
        ({"Title": "t" * 101}, "title", "At most 100 characters"),
        ({"Reference": "has space"}, "tx_ref", "Letters, digits"),
        ({"Last name": "#REF!"}, "last_name", "An Excel error (#REF!)"),
    ],
)
def test_each_field_by_the_forms_rules(over, column, words):
    (one,) = checked(sheet_of(row(1, **over)))
    assert [(p.column, p.message[: len(words)]) for p in one.problems] == [(column, words)]


def test_urls_and_extra_fields():
    headers = [*HEADERS, "Return URL", "meta.student", "Class"]
    sheet = sheet_of([*row(1), "ftp://x", "1.2E+10", "4B"], [*row(2), "", "S-7", ""], headers=headers)
    mapping = guess_mapping(headers) | {"meta.Class": 9}
    rows = check_rows(sheet, mapping, profile(return_url="https://shop.example/thanks"))
    assert problems(rows) == [
        (2, "return_url", "An address starting with http:// or https://"),
        (2, "meta.student", EXCEL_NUMBER),
    ]
    request = request_of(rows[1], "BULK-00003")
    assert request == PaymentRequest(
        amount=Decimal(12),
        currency="GBP",
        email="c2@example.com",
        first_name="Ada2",
        last_name="Lovelace",
        tx_ref="BULK-00003",
        return_url="https://shop.example/thanks",
        title="Term fees",
        meta={"student": "S-7"},
    )  # an empty extra field is left out
    with pytest.raises(ValueError, match="row 2 has problems"):
        request_of(rows[0], "BULK-00002")


def test_problem_words():
    assert str(Problem(7, "email", "Not an e-mail address")) == "Row 7, email: Not an e-mail address"


def test_ten_thousand_rows(tmp_path):
    """The dry run of 10,000 rows (100 of them wrong in known ways), read from a file:
    every wrong row found, no other. Its time is printed, not asserted."""
    rows = []
    for n in range(10_000):
        if n % 100 == 7:
            rows.append(
                row(
                    n,
                    **[{"E-mail": "nope"}, {"Amount": "2.5"}, {"Currency": "XYZ"}, {"Reference": "9.87E+14"}][
                        n // 100 % 4
                    ],
                )
            )
        else:
            rows.append(row(n))
    path = write_csv(tmp_path / "big.csv", rows, delimiter=";", encoding="utf-8-sig")
    started = time.perf_counter()
    sheet = read_sheet(path)
    read = time.perf_counter()
    checked_rows = checked(sheet)
    done = time.perf_counter()
    print(f"\nbulk dry run: 10,000 rows read in {read - started:.3f} s, checked in {done - read:.3f} s")
    assert len(checked_rows) == 10_000
    wrong = [r.number for r in checked_rows if not r.ok]
    assert wrong == [n + 2 for n in range(10_000) if n % 100 == 7]
    assert all(len(r.problems) == 1 for r in checked_rows if not r.ok)


@pytest.fixture
def french():
    from paydesk.i18n import ENGLISH, set_language

    set_language("fr")
    yield
    set_language(ENGLISH)


def test_a_mistyped_reference_of_paydesk_reads_in_french_when_french_is_chosen(french):
    """The reference's check (the service layer's sentence, which imports no words) is said
    in the staff's language where the file's row shows it."""
    from paydesk.service.txref import INSTALLATION_ALPHABET, TxRefGenerator

    good = TxRefGenerator("INV", INSTALLATION_ALPHABET[:6]).next()  # e.g. INV-261127-ABCDEF-0001K3
    typo = good[:-1] + next(c for c in "XYZ" if c != good[-1])
    (one,) = checked(sheet_of(row(1, Reference=typo)))
    assert [(p.column, p.message) for p in one.problems] == [
        ("tx_ref", "Cette référence n’est pas valide (une faute de frappe)\u00a0: vérifiez chaque caractère")
    ]
