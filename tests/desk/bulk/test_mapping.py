"""Columns matched to fields by name, whatever the case, spacing, "_" or "-" (a changed
layout maps by name, never by position); the rest offered as extra fields."""

from __future__ import annotations

from paydesk.desk.bulk.mapping import extra_field, guess_mapping, missing, unmapped


def test_names_matched_ignoring_case_spaces_and_dashes():
    headers = [
        "E-Mail",
        " AMOUNT ",
        "currency",
        "First Name",
        "last_name",
        "Tx Ref",
        "Return-URL",
        "callbackUrl",
        "Description",
        "TITLE",
    ]
    assert guess_mapping(headers) == {
        "email": 0,
        "amount": 1,
        "currency": 2,
        "first_name": 3,
        "last_name": 4,
        "tx_ref": 5,
        "return_url": 6,
        "callback_url": 7,
        "description": 8,
        "title": 9,
    }


def test_other_names():
    mapping = guess_mapping(["Reference", "Email address", "Surname", "Given name", "Sum"])
    assert mapping == {"tx_ref": 0, "email": 1, "last_name": 2, "first_name": 3, "amount": 4}


def test_a_reordered_layout_maps_the_same_fields():
    """A changed file layout must not move values into the wrong field."""
    one = ["amount", "currency", "email", "first_name", "last_name", "tx_ref"]
    other = list(reversed(one))
    first, second = guess_mapping(one), guess_mapping(other)
    assert {f: one[i] for f, i in first.items()} == {f: other[i] for f, i in second.items()}


def test_extra_fields_and_unknown_columns():
    headers = ["Amount", "meta.student_id", "Meta.Class", "Notes", "email", "Email"]
    mapping = guess_mapping(headers)
    assert mapping == {"amount": 0, "meta.student_id": 1, "meta.Class": 2, "email": 4}
    assert unmapped(headers, mapping) == ["Notes", "Email"]  # the second e-mail column too
    assert extra_field("Notes") == "meta.Notes"
    assert extra_field("META. Class ") == "meta.Class"
    assert missing(mapping) == ["currency", "first_name", "last_name"]
