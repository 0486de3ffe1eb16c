"""Kill PayDesk between sending a fund and its answer (the service commits, the answer is
dropped), start it again: the fund is settled by reading the card back, marked done once,
and nothing is sent again."""

from tests.ui.killed import Run, rows


def test_killed_mid_fund_is_settled_on_next_start(tmp_path):
    run = Run(tmp_path)
    service_db, ledger_db = run.service_db, run.ledger_db
    funded = "SELECT COUNT(*) FROM card_transactions WHERE card_hash = ? AND description = 'Card funded'"
    said = run.kill_once_committed(
        "tests.ui.cards.kill_helper", lambda said: rows(service_db, funded, said["card"]) == [(1,)], "the fund"
    )  # the service has committed the fund; its answer was dropped
    card = said["card"]
    ((state,),) = rows(ledger_db, "SELECT state FROM card_operations WHERE kind = 'fund'")
    assert state in ("sending", "lost")  # the intent was written before the call

    run.start_again(quit_after=5)
    assert rows(service_db, funded, card) == [(1,)]  # not sent again
    ((state, settled, evidence),) = rows(
        ledger_db, "SELECT state, settled, evidence FROM card_operations WHERE kind = 'fund'"
    )
    ((tx_id,),) = rows(
        service_db, "SELECT id FROM card_transactions WHERE card_hash = ? AND description = 'Card funded'", card
    )
    assert (state, settled, evidence) == ("done", 1, str(tx_id))
    assert rows(service_db, "SELECT balance FROM cards WHERE card_hash = ?", card) == [("55.00",)]
    assert rows(ledger_db, "SELECT balance_minor FROM cards WHERE card_hash = ?", card) == [(5500,)]
    results = [r for (r,) in rows(ledger_db, "SELECT result FROM card_audit WHERE action = 'fund' ORDER BY id")]
    assert results[0] == "sent" and results[-1] == "checked: done"
