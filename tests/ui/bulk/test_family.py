"""Bulk links against the --family sandbox, which answers as the family's real server code does
(SERVICE.md 1b): rows without extra fields or a callback URL are made (nothing is sent as
null), and a row whose amount is outside the merchant's limits is refused with the limit in one
sentence, on its row of the Batches window."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from tests import dialects
from tests.ui.bulk.conftest import HEADERS, open_shop, row, write_csv
from tests.ui.bulk.test_batches import open_batches, text


@pytest.fixture
def family_shop(make_sandbox, paths, keys, loop, qtbot):
    yield from open_shop(
        make_sandbox("family", base_path="/pay", **dialects.options("family")),
        "Family Shop",
        "FAM",
        paths,
        keys,
        loop,
        qtbot,
    )


def test_rows_are_made_and_one_below_the_minimum_is_refused_in_a_sentence(family_shop, tmp_path):
    shop = family_shop
    shop.sandbox.settings(amount_limits={"GBP": {"min_amount": 5, "max_amount": 500}})
    rows = [
        row(2, description="Autumn term"),
        row(3, amount="3", description="Autumn term"),
        row(4, description="Autumn term"),
    ]
    path = write_csv(tmp_path / "family.csv", rows, headers=[*HEADERS, "description"])
    window = shop.open_bulk()
    shop.load(window, path)
    shop.check(window)
    shop.create(window)
    assert shop.wait_done(window).startswith("Done: 2 links created")
    assert shop.creates() == 2
    batches = open_batches(shop)
    model = batches.rows_model
    shop.loop.until(lambda: model.rowCount() == 3, message="the batch's rows")
    by_row = {text(model, i, 0): i for i in range(3)}
    assert [text(model, by_row[n], 1) for n in ("2", "3", "4")] == ["Created", "Refused", "Created"]
    headers = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    error = headers.index("Error")
    assert text(model, by_row["3"], error) == "The minimum amount for GBP is 5"
    assert text(model, by_row["2"], error) == ""
