"""The Transactions search, typed without accents or in capitals (issue 28, item 17b):
"Odeg" finds the five Ødegårds that "degård" finds, and "Odegard" too."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

from paydesk.ledger import LinkRecord
from paydesk.ui.transactions.model import COLUMNS
from tests.ui import press

NOW = datetime.now(UTC)
CUSTOMER = [c for c, (header, _) in enumerate(COLUMNS) if header == "Customer"][0]


def test_search_finds_a_name_typed_without_its_accents(strict_shop):
    shop = strict_shop
    names = [("Sigrid", "Ødegård")] * 5 + [("Ada", "Lovelace"), ("Søren", "Kierkegaard")]
    records = [
        LinkRecord(
            id=0,
            profile_id=shop.profile.id,
            mode="test",
            tx_ref=f"SHOP-ACC-{i}",
            amount=Decimal(5),
            currency="GBP",
            email=f"c{i}@example.no",
            first_name=first,
            last_name=last,
            state="pending",
            created_at=NOW - timedelta(minutes=i),
            updated_at=NOW,
        )
        for i, (first, last) in enumerate(names)
    ]
    shop.loop.run(shop.session.ledger.import_records(records))
    shop.refresh()
    model, search = shop.tab.model, shop.tab.filters.search

    def shown_customers() -> list[str]:
        return [model.index(row, CUSTOMER).data() for row in range(model.rowCount())]

    for typed in ("degård", "Odeg", "odegard", "ØDEGÅRD"):
        press.type_into(search, typed)
        shop.loop.until(
            lambda typed=typed: (
                model.query.text == typed and model.counted and shown_customers() == ["Sigrid Ødegård"] * 5
            ),
            message=f"the five Ødegårds for {typed!r}",
        )
    press.type_into(search, "soren")
    shop.loop.until(lambda: shown_customers() == ["Søren Kierkegaard"], message="Søren")
