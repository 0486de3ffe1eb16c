"""A Counter voids only a sale they made (desk/staff.py's ``require_own``): who made it, as
the ledger names them, against the person signed in; an Admin may void any; a shop without
staff, anyone."""

import pytest

from paydesk.desk.staff import Capability, NotAllowed, Person, Role, Staff

BO = Person("b", "Bo", Role.COUNTER)
CY = Person("c", "Cy", Role.COUNTER)
ANA = Person("a", "Ana", Role.ADMIN)
FAY = Person("f", "Fay", Role.FINANCE)


def test_a_counter_voids_only_their_own_sale():
    staff = Staff()
    staff.require_own(Capability.VOID_OWN_SALE, "anyone")  # no staff set up: as before
    staff.signed_in(BO)
    staff.require_own(Capability.VOID_OWN_SALE, "Bo")
    staff.signed_in(CY)
    with pytest.raises(NotAllowed, match=r"^Cy may void only their own sales: this one was made by Bo\.$"):
        staff.require_own(Capability.VOID_OWN_SALE, "Bo")
    with pytest.raises(NotAllowed, match=r"^Cy may void only their own sales: this one was made before anyone"):
        staff.require_own(Capability.VOID_OWN_SALE, None)
    staff.signed_in(ANA)
    staff.require_own(Capability.VOID_OWN_SALE, "Bo")  # an Admin: any sale
    staff.signed_in(FAY)
    with pytest.raises(NotAllowed, match=r"^Fay \(Finance\) may not use void own sale\.$"):
        staff.require_own(Capability.VOID_OWN_SALE, "Fay")
    staff.lock()
    with pytest.raises(NotAllowed, match="Sign in first"):
        staff.require_own(Capability.VOID_OWN_SALE, "Bo")
