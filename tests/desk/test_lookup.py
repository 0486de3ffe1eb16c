"""What the lookup box makes of what is typed, pasted or scanned (desk/lookup.py: no Qt, no
service). The date ranges of the filters are a widget's: tests/ui/transactions/test_filters.py."""

import random
from datetime import date

import pytest

from paydesk.desk.lookup import read
from paydesk.service.txref import ALPHABET, TxRefGenerator, new_installation_id

OURS = frozenset({"SHOP"})


@pytest.mark.parametrize(
    "typed,tx_ref,reference",
    [
        ("SHOP-261122-K7QM4X-0042R9", "SHOP-261122-K7QM4X-0042R9", None),
        ("  shop-261122-k7qm4x-0042r9\n", "SHOP-261122-K7QM4X-0042R9", None),  # a scanner's Enter
        ("web-order-77", "web-order-77", None),  # someone else's: as typed
        ("https://pay.example/pay/payment/PDK-0a1b2c3d", None, "PDK-0a1b2c3d"),
        ("https://shop.example/thanks?tx_ref=ORDER-9&status=successful", "ORDER-9", None),
    ],
)
def test_what_is_looked_up(typed, tx_ref, reference):
    got = read(typed, OURS)
    assert (got.tx_ref, got.reference, got.problem) == (tx_ref, reference, None)


@pytest.mark.parametrize(
    "typed,problem",
    [
        ("", "Type, paste or scan a reference"),
        ("has space", None),
        ("<script>", "A reference has letters, digits and . _ ~ : - only"),
        ("https://shop.example/somewhere", "This link carries no payment reference"),
        ("SHOP-261122-K7QM4X-0002R9", "Character 22 looks mistyped"),
        ("SHOP-261122-K7QM4X-0402R9", "Characters 21 and 22 look swapped"),
        ("SHOP-26112A-K7QM4X-0042R9", "Character 11 looks mistyped"),  # a letter in the date
    ],
)
def test_what_is_refused_before_any_call(typed, problem):
    assert read(typed, OURS).problem == problem


def test_typos_are_located_and_never_wrongly():
    """Every single mistyped character and every swap of neighbours is caught; most are
    located; none is ever blamed on the wrong character."""
    rng = random.Random(11)
    located = 0
    for _ in range(300):
        ref = TxRefGenerator(
            "SHOP",
            new_installation_id(),
            lambda d: rng.randrange(1, 9999),
            lambda: date(2026, rng.randrange(1, 13), rng.randrange(1, 29)),
        ).next()
        i = rng.choice([k for k, c in enumerate(ref) if c != "-" and k > 4])
        typo = ref[:i] + rng.choice([c for c in ALPHABET if c != ref[i]]) + ref[i + 1 :]
        problem = read(typo, OURS).problem
        assert problem is not None
        if problem.startswith("Character "):
            assert problem == f"Character {i + 1} looks mistyped"
            located += 1
    assert located > 240
