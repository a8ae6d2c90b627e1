"""Your Day 15 worker for outboxlab's grading protocol (docs/grade-protocol.md, version 1,
section 7.2).

It already speaks the protocol (lab.py); the numbered TODOs below are Day 15:
a lease that runs out, a fencing token, and the owner and token check on every record.

    outboxlab grade session-15 -- python3 worker.py
"""

from lab import ClaimLost, Database, Lab, WorkerError, parse_time, read_config, run, time_text


class Worker:
    """One worker process's loop over the outbox: claim, ask the provider, record, sleep,
    done (section 7.2). Two or three of them run at once: Day 15 makes sure that a message
    has one owner at a time."""

    def __init__(self, cfg, lab, db):
        self.cfg, self.lab, self.db = cfg, lab, db

    def run(self):
        """Drains the outbox, then says done."""
        while True:
            batch = self.claim()
            if not batch:
                wake = self.next_wake()
                if wake is None:
                    self.lab.done()
                    return
                self.lab.sleep_until(wake + 1)
                continue
            for m in batch:
                answer = self.lab.status(m["key"], m["id"])  # outside any transaction: a lab call
                try:
                    self.record(m, answer)
                except ClaimLost:
                    pass  # the new owner finishes it

    def claim(self):
        """Up to BATCH_SIZE claimable messages in one transaction, oldest first; the attempt
        is counted (AttemptCount + 1) at claim time."""
        now = time_text(self.lab.now_ms)  # this turn's time, as the database stores it

        def tx():
            # TODO(Day 15) #1: a Processing message whose lease has run out
            # (LockedUntilUtc < now) is claimable too: its worker died or stalled.
            rows = self.db.execute(
                """SELECT Id, MessageKey, ClaimToken FROM OutboxMessages
                    WHERE Status = 'Pending'
                    ORDER BY CreatedAtUtc, Id LIMIT ?""", (self.cfg.batch_size,)).fetchall()
            batch = []
            for msg_id, key, token in rows:
                lease = time_text(self.lab.now_ms + self.cfg.lease_ms)
                # TODO(Day 15) #2: the fencing token: ClaimToken = ClaimToken + 1 in this
                # UPDATE, and "token": token + 1 below, so that a record can tell this claim
                # from the next one.
                self.db.execute(
                    """UPDATE OutboxMessages SET Status = 'Processing', LockedBy = ?, LockedUntilUtc = ?,
                              AttemptCount = AttemptCount + 1 WHERE Id = ?""",
                    (self.cfg.worker_id, lease, msg_id))
                batch.append({"id": msg_id, "key": key, "token": token})
            return batch

        return self.db.transaction(tx)

    def record(self, m, answer):
        """What the provider said, in one transaction: the payment Paid with the provider's
        transaction id (or Failed when declined), the message Processed."""
        outcome, tx_id, failure = answer
        if failure is not None:
            raise WorkerError(f"payment {m['key']}: {failure} (Day 15's provider never fails a status check)")
        if outcome == "Paid":
            status = "Paid"
        elif outcome == "Declined":
            status, tx_id = "Failed", None  # no transaction id unless the provider issued one
        else:
            raise WorkerError(f"payment {m['key']}: the provider answered {outcome!r}")
        now = time_text(self.lab.now_ms)

        def tx():
            # TODO(Day 15) #3: only if the message is still yours under this claim: add
            # AND Status = 'Processing' AND LockedBy = ? AND ClaimToken = ?
            # (self.cfg.worker_id, m["token"]); when no row changed (cursor.rowcount == 0),
            # raise ClaimLost() and touch nothing else: a stalled worker's late answer must
            # change nothing.
            self.db.execute(
                """UPDATE OutboxMessages SET Status = 'Processed', ProcessedAtUtc = ?,
                          LockedBy = NULL, LockedUntilUtc = NULL WHERE Id = ?""", (now, m["id"]))
            self.db.execute(
                "UPDATE Payments SET Status = ?, ProviderTransactionId = ?, UpdatedAtUtc = ? WHERE PaymentKey = ?",
                (status, tx_id, now, m["key"]))

        self.db.transaction(tx)

    def next_wake(self):
        """When something may next be claimable; None when no message is left to claim."""
        # TODO(Day 15) #4: a Processing message is live too (another worker owns it, or its
        # worker died): wake when its lease runs out, at LockedUntilUtc (the loop adds 1 ms;
        # parse_time(text) reads a stored time), and claim it then.
        (count,) = self.db.execute("SELECT COUNT(*) FROM OutboxMessages WHERE Status = 'Pending'").fetchone()
        return self.lab.now_ms if count > 0 else None


def main():
    cfg = read_config()
    lab = Lab(cfg.lab_url, cfg.token)
    lab.hello()  # always the first call: touch the database only after it
    db = Database(cfg.database, cfg.busy_timeout_ms)
    if cfg.role != "worker" or cfg.day != "15":
        raise WorkerError(f"this is the Day 15 worker: OUTBOXLAB_DAY {cfg.day!r}, OUTBOXLAB_ROLE {cfg.role!r}")
    Worker(cfg, lab, db).run()


if __name__ == "__main__":
    run(main)
