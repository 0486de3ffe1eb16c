"""The dry run: every row of a bulk file checked by the link form's own rules (desk/checks.py)
before any call, each problem named with its row and column; duplicates within the file,
references already in the ledger, and what Excel did to a reference found too.

Pure and fast (10,000 rows well under a second); ``known_references`` asks the ledger.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Set
from dataclasses import dataclass, field
from decimal import Decimal

from ...config.profiles import Profile
from ...i18n import N_, _, ngettext
from ...ledger import Ledger
from ...service.models import PaymentRequest
from .. import checks
from .mapping import Mapping
from .sheet import FIELDS, META, Problem, Sheet

EXCEL_REFERENCE = N_("Excel turned this reference into a number: format the column as Text and save again")
EXCEL_NUMBER = N_("Excel turned this into a number: format the column as Text and save again")
IN_LEDGER = N_("A link with this reference is already in the ledger")
NOT_A_NAME = N_("A formula, not a name")
A_FORMULA = N_("A formula, not text: type the text itself")
CHUNK = 500  # references asked of the ledger at once

# how Excel shows a long number: one digit, maybe decimals, E, a sign, the exponent (1.23E+15)
_SCIENTIFIC = re.compile(r"[+-]?[0-9](?:[.,][0-9]+)?[Ee][+-][0-9]{2,3}")
_WHOLE_WITH_ZEROS = re.compile(r"([0-9]+)[.,]0{1,2}")  # 25.00 or 25,00: 25 whole units
_EXCEL_ERRORS = frozenset(
    ("#N/A", "#REF!", "#VALUE!", "#DIV/0!", "#NAME?", "#NUM!", "#NULL!", "#SPILL!", "#CALC!", "#GETTING_DATA")
)
_FORMULA_STARTS = ("=", "+", "-", "@")


@dataclass
class BulkRow:
    """One row to create: its file row ``number``, its ``values`` by field (every field of
    FIELDS, "" when not given; extra fields as "meta.<name>"), and what is wrong with it."""

    number: int
    values: dict[str, str]
    problems: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def _name(text: str, what: str) -> str | None:
    if text[:1] in _FORMULA_STARTS:
        return _(NOT_A_NAME)
    return checks.name(text, what)


def _text(text: str, most: int, *, lines: bool = False) -> str | None:
    if text[:1] == "=":
        return _(A_FORMULA)
    return checks.limit(text, most, lines=lines)


def _currency(text: str, currencies: list[str]) -> str | None:
    if text in currencies:
        return None
    listed = ", ".join(currencies) or _("none set up")
    if not text:
        return _("Enter the currency: one of {listed}").format(listed=listed)
    return _("Not a currency of this profile ({listed})").format(listed=listed)


def _meta_problem(names: list[str]) -> tuple[str, str] | None:
    """(field, message) when the extra fields' names break the service's rules."""
    if len(names) > checks.META_FIELDS:
        return META + names[checks.META_FIELDS], _("At most {count} extra fields").format(count=checks.META_FIELDS)
    for name in names:
        if len(name) > checks.META_NAME or checks.meta([(name, "")]):
            return META + name, _("An extra field's name: one line, at most {count} characters").format(
                count=checks.META_NAME
            )
    return None


def check_rows(
    sheet: Sheet, mapping: Mapping, profile: Profile, *, known_refs: Set[str] = frozenset()
) -> list[BulkRow]:
    """Every row of ``sheet`` read through ``mapping`` and checked; ``known_refs``: the
    references of the file that the ledger already holds (``known_references``)."""
    currencies = [c.upper() for c in profile.currencies]
    metas = [f for f in mapping if f.startswith(META)]
    meta_wrong = _meta_problem([f[len(META) :] for f in metas])
    defaults = {"callback_url": profile.callback_url.strip(), "return_url": profile.return_url.strip()}
    ref_column = mapping.get("tx_ref")
    rows: list[BulkRow] = []
    for number, cells in sheet.rows:
        values = {
            f: (cells[mapping[f]].strip() if f in mapping and mapping[f] < len(cells) else "")
            for f in (*FIELDS, *metas)
        }
        values["currency"] = values["currency"].upper()
        whole = _WHOLE_WITH_ZEROS.fullmatch(values["amount"])
        if whole:
            values["amount"] = whole.group(1)
        for key, default in defaults.items():
            if not values[key]:
                values[key] = default
        found = {
            "amount": checks.amount(values["amount"]),
            "currency": _currency(values["currency"], currencies),
            "email": checks.email(values["email"]),
            "first_name": _name(values["first_name"], _("first name")),
            "last_name": _name(values["last_name"], _("last name")),
            "title": _text(values["title"], 100),
            "description": _text(values["description"], 255, lines=True),
            "callback_url": checks.url(values["callback_url"]),
            "return_url": checks.url(values["return_url"]),
        }
        ref = values["tx_ref"]
        if ref:
            if (number, ref_column) in sheet.numbers or _SCIENTIFIC.fullmatch(ref):
                found["tx_ref"] = _(EXCEL_REFERENCE)
            else:
                found["tx_ref"] = checks.tx_ref(ref)
        for meta in metas:
            text = values[meta]
            if _SCIENTIFIC.fullmatch(text):
                found[meta] = _(EXCEL_NUMBER)
            elif text[:1] == "=":
                found[meta] = _(A_FORMULA)
            elif len(text) > checks.META_VALUE or checks.meta([("x", text)]):
                found[meta] = _("An extra field's value: text of at most {count} characters").format(
                    count=checks.META_VALUE
                )
        if meta_wrong:
            found.setdefault(*meta_wrong)
        for key, text in values.items():
            if text in _EXCEL_ERRORS:
                found[key] = _("An Excel error ({text}): correct the cell in the spreadsheet").format(text=text)
        problems = [Problem(number, key, message) for key, message in found.items() if message]
        rows.append(BulkRow(number, values, problems))
    _same_references(rows, known_refs)
    return rows


def _same_references(rows: list[BulkRow], known_refs: Set[str]) -> None:
    """Problems for references twice in the file (every row that has it) or in the ledger."""
    where: dict[str, list[int]] = {}
    for index, row in enumerate(rows):
        ref = row.values["tx_ref"]
        if ref and not any(p.column == "tx_ref" for p in row.problems):
            where.setdefault(ref, []).append(index)
    for ref, indexes in where.items():
        if len(indexes) > 1:
            for index in indexes:
                row = rows[index]
                others = [rows[i].number for i in indexes if i != index]
                shown = ", ".join(str(n) for n in others[:5]) + (", …" if len(others) > 5 else "")
                row.problems.append(
                    Problem(
                        row.number,
                        "tx_ref",
                        ngettext(
                            "The same reference is in row {shown}", "The same reference is in rows {shown}", len(others)
                        ).format(shown=shown),
                    )
                )
        elif ref in known_refs:
            row = rows[indexes[0]]
            row.problems.append(Problem(row.number, "tx_ref", _(IN_LEDGER)))


def references(rows: Iterable[BulkRow]) -> list[str]:
    """The references the file gives (to ask the ledger about)."""
    return [r.values["tx_ref"] for r in rows if r.values.get("tx_ref")]


async def known_references(ledger: Ledger, profile_id: str, refs: Collection[str]) -> set[str]:
    """Which of ``refs`` the ledger already holds for the profile: one query per 500."""
    wanted = list(dict.fromkeys(r for r in refs if r))
    known: set[str] = set()
    for start in range(0, len(wanted), CHUNK):
        known |= await ledger.references_in(profile_id, wanted[start : start + CHUNK])
    return known


def request_of(row: BulkRow, tx_ref: str) -> PaymentRequest:
    """The link's request for a checked row (ValueError for a row with problems)."""
    if row.problems:
        raise ValueError(_("row {number} has problems: {problems}").format(number=row.number, problems=row.problems[0]))
    v = row.values

    def given(key: str) -> str | None:
        return v.get(key, "").strip() or None

    return PaymentRequest(
        amount=Decimal(v["amount"]),
        currency=v["currency"],
        email=v["email"],
        first_name=v["first_name"],
        last_name=v["last_name"],
        tx_ref=tx_ref,
        callback_url=given("callback_url"),
        return_url=given("return_url"),
        title=given("title"),
        description=given("description"),
        meta={k[len(META) :]: text for k, text in v.items() if k.startswith(META) and text},
    )
