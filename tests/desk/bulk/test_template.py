"""The template: every field, an extra field, two example rows from the profile's rules that
the dry run passes; an XLSX whose columns are Text (so Excel keeps references and zeros)."""

from __future__ import annotations

import pytest

from paydesk.desk.bulk.check import check_rows
from paydesk.desk.bulk.mapping import guess_mapping, missing, unmapped
from paydesk.desk.bulk.read import read_sheet
from paydesk.desk.bulk.sheet import FIELDS
from paydesk.desk.bulk.template import template, write_template

from .files import profile


def test_examples_follow_the_profiles_rules():
    shop = profile(currencies=["EUR", "GBP"], callback_url="https://shop.example/cb")
    headers, rows = template(shop)
    assert headers[: len(FIELDS)] == list(FIELDS) and headers[-1] == "meta.customer_id"
    assert [r[1] for r in rows] == ["EUR", "GBP"]
    assert all(r[0].isdigit() for r in rows)  # whole units
    assert [r[headers.index("callback_url")] for r in rows] == ["https://shop.example/cb"] * 2


@pytest.mark.parametrize("suffix", [".csv", ".xlsx"])
def test_template_reads_back_and_passes_the_dry_run(tmp_path, suffix):
    shop = profile(currencies=["USD"])
    path = tmp_path / f"bulk-template{suffix}"
    write_template(path, shop)
    assert not (tmp_path / f"bulk-template{suffix}.part").exists()
    sheet = read_sheet(path)
    mapping = guess_mapping(sheet.headers)
    assert missing(mapping) == [] and unmapped(sheet.headers, mapping) == []
    rows = check_rows(sheet, mapping, shop)
    assert [p for r in rows for p in r.problems] == []
    assert rows[0].values["tx_ref"] == "INV-000123"  # leading zeros kept
    assert rows[0].values["meta.customer_id"] == "000417"
    assert sheet.numbers == set()  # nothing a number: every cell text


def test_xlsx_columns_are_text(tmp_path):
    from openpyxl import load_workbook

    path = tmp_path / "t.xlsx"
    write_template(path, profile())
    sheet = load_workbook(path).active
    assert all(c.number_format == "@" for r in sheet.iter_rows(min_row=2) for c in r)
    assert sheet.column_dimensions["H"].number_format == "@"  # typed later: text too


def test_other_suffix_refused(tmp_path):
    with pytest.raises(ValueError, match="csv or .xlsx"):
        write_template(tmp_path / "t.ods", profile())
