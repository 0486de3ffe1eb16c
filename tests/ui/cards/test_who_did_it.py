"""Who did it, in the card wallet: each line of the Audit log says who was signed in when it
was asked (its By column; blank for a shop without staff), the log's search
finds a person by name, and the CSV export has the same By column (read back). People are
signed in through the desk's own API (``session.staff.signed_in``): the sign-in screen is
another change's."""

from PySide6.QtCore import Qt

from paydesk.desk.staff import Person, Role
from paydesk.ui.cards.audit import COLUMNS
from tests.ui import press
from tests.ui.cards.test_wallet import Desk, exported_audit

BY = COLUMNS.index("By")


def test_the_audit_log_and_its_export_say_who_did_each_operation(start_app, loop, tmp_path):
    app = start_app(sandbox=True)
    app.wait_started()
    desk = Desk(app, loop)
    staff = app.session.staff
    staff.signed_in(Person("p-ana", "Ana", Role.ADMIN))
    desk.create("40", "GBP")
    staff.signed_in(Person("p-cy", "Cy", Role.ADMIN))
    dialog, _ = desk.amount("fund", 5)
    desk.close(dialog)
    audit = desk.tab.audit
    press.tab(desk.tab.sections, "Audit log")
    loop.until(lambda: audit.model.rowCount() == 4, message="the audit lines")

    def shown() -> list[tuple[str, str, str]]:
        model = audit.model
        return [tuple(model.data(model.index(r, c)) for c in (5, 7, BY)) for r in range(model.rowCount())]

    assert shown() == [
        ("fund", "done", "Cy"),
        ("fund", "sent", "Cy"),
        ("create", "done", "Ana"),
        ("create", "sent", "Ana"),
    ]
    assert audit.model.headerData(BY, Qt.Orientation.Horizontal) == "By"
    press.type_into(audit.search, "ana")
    loop.until(lambda: audit.model.rowCount() == 2, message="Ana's lines")
    assert {line[2] for line in shown()} == {"Ana"}

    header, *lines = exported_audit(loop, audit, tmp_path / "audit.csv", 3)
    rows = [dict(zip(header, line, strict=True)) for line in lines]
    assert [(r["Action"], r["Result"], r["By"]) for r in rows] == [("create", "done", "Ana"), ("create", "sent", "Ana")]
