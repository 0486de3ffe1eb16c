"""How far a batch got, in the words the Bulk links window and the status bar show
(desk/bulk/progress.py): a batch joined by a corrected file says what this file created and
what was created before ("2 created now, 5 before"), not the batch's whole count as if this
file had made it (issue 28 §13)."""

from __future__ import annotations

from paydesk.desk.bulk.progress import outcome, report
from paydesk.ledger.batch import BatchFigures

FRESH = BatchFigures(rows=8, waiting=8)


def test_a_first_run_says_how_many_links_it_created():
    done = BatchFigures(rows=8, created=6, refused=1, skipped=1)
    assert outcome(done, cancelled=False, before=FRESH) == ("Done: 6 links created, 1 refused by the service")
    assert outcome(BatchFigures(rows=1, created=1), cancelled=False, before=None) == (
        "Done: 1 link created, 0 refused by the service"
    )
    assert report(done, "Finished", FRESH) == "Finished: 6 of 8 links created, 1 refused, 1 skipped"


def test_a_corrected_file_says_what_it_created_now_and_what_before():
    before = BatchFigures(rows=7, created=4, paid=1, waiting=2)
    done = BatchFigures(rows=7, created=5, paid=2)  # one more paid meanwhile: still 2 made now
    assert outcome(done, cancelled=False, before=before) == ("Done: 2 created now, 5 before, 0 refused by the service")
    assert report(done, "Finished", before) == "Finished: 7 of 7 links created (2 now, 5 before)"


def test_a_link_made_before_whose_payment_failed_meanwhile_is_still_one_made_before():
    before = BatchFigures(rows=7, created=5, waiting=2)
    done = BatchFigures(rows=7, created=6, failed=1)
    assert outcome(done, cancelled=False, before=before) == (
        "Done: 2 created now, 5 before, 0 refused by the service, 1 failed"
    )


def test_cancelled_and_stopped_runs_of_a_joined_batch():
    before = BatchFigures(rows=30, created=5, waiting=25)
    cancelled = BatchFigures(rows=30, created=8, refused=1, waiting=21)
    assert outcome(cancelled, cancelled=True, before=before) == (
        "Cancelled: 3 created now, 5 before, 1 refused, 21 not sent. Resume sends the rest."
    )
    assert outcome(cancelled, cancelled=False, before=before) == ("Stopped with 21 rows not sent. Resume sends them.")
    creating = BatchFigures(rows=30, created=28, creating=2)
    assert outcome(creating, cancelled=False, before=before).endswith(
        " 2 sent, their answer not in yet: PayDesk settles them with the service by their reference."
    )
