"""Kill PayDesk right after a create is sent (the service commits, the answer is dropped),
start it again: exactly one link, in the service and in the ledger, settled."""

from tests.ui.killed import Run, rows


def test_killed_mid_create_is_settled_on_next_start(tmp_path):
    run = Run(tmp_path)
    service_db, ledger_db = run.service_db, run.ledger_db
    said = run.kill_once_committed(
        "tests.ui.crash_helper",
        lambda said: bool(rows(service_db, "SELECT 1 FROM transactions WHERE tx_ref = ?", said["creating"])),
        "the create",
    )  # the service has committed it; the answer was dropped
    tx_ref = said["creating"]
    assert rows(ledger_db, "SELECT state, checkout_url FROM links WHERE tx_ref = ?", tx_ref) == [("creating", None)]

    run.start_again(quit_after=4)
    assert rows(service_db, "SELECT COUNT(*) FROM transactions WHERE tx_ref = ?", tx_ref) == [(1,)]
    ((state, url, reference),) = rows(
        ledger_db, "SELECT state, checkout_url, reference FROM links WHERE tx_ref = ?", tx_ref
    )
    ((service_reference,),) = rows(service_db, "SELECT reference FROM transactions WHERE tx_ref = ?", tx_ref)
    assert state == "pending" and reference == service_reference
    assert url.endswith(f"/payment/{service_reference}")
    assert rows(ledger_db, "SELECT COUNT(*) FROM links") == [(1,)]
    assert rows(service_db, "SELECT COUNT(*) FROM transactions") == [(1,)]
