"""Your Day 16 worker for outboxlab's grading protocol (docs/grade-protocol.md, version 1).

It already speaks the protocol (lab.py), claims with a lease and records with the owner
check (Day 15); the numbered TODOs below are Day 16: count the attempt at
claim, gate the claim on NextAttemptUtc, back off, and dead-letter at MaxAttempts.

    outboxlab grade session-16 -- python3 worker.py
"""

from lab import ClaimLost, Database, Lab, WorkerError, parse_time, read_config, run, time_text

# An uncapped backoff stops doubling here (30 days, far past the lab's one-day clock).
MAX_SLEEP_MS = 30 * 24 * 3600 * 1000


def backoff(cfg, n):
    """The wait after the n-th failed attempt: base x 2^(n-1), capped at cfg.max_backoff_ms
    when that is not 0."""
    # TODO(Day 16) #3: return cfg.base_backoff_ms x 2^(n-1), capped at cfg.max_backoff_ms
    # when that is not 0 (stop doubling at MAX_SLEEP_MS).
    return 0


# The fence every record passes: still Processing, locked by this worker, under this claim's token.
OWNER_CHECK = " WHERE Id = ? AND Status = 'Processing' AND LockedBy = ? AND ClaimToken = ?"


class Worker:
    """One worker process's loop over the outbox: claim, ask the provider, record, sleep,
    done (section 7.1). Day 16 adds: back off or dead-letter."""

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
        """Up to BATCH_SIZE claimable messages in one transaction, oldest first: Pending, or
        Processing with an expired lease."""
        now = time_text(self.lab.now_ms)

        def tx():
            # TODO(Day 16) #2: the backoff gate: claim only rows whose
            # NextAttemptUtc IS NULL OR NextAttemptUtc <= now (compared as text).
            rows = self.db.execute(
                """SELECT Id, MessageKey, AttemptCount, MaxAttempts, ClaimToken FROM OutboxMessages
                    WHERE (Status = 'Pending' OR (Status = 'Processing' AND LockedUntilUtc < ?))
                    ORDER BY CreatedAtUtc, Id LIMIT ?""", (now, self.cfg.batch_size)).fetchall()
            batch = []
            for msg_id, key, attempts, max_attempts, token in rows:
                m = {"id": msg_id, "key": key, "attempt": attempts,
                     # the row's MaxAttempts; 0: no ceiling
                     "max_attempts": max_attempts if max_attempts is not None else self.cfg.max_attempts,
                     "token": token + 1}
                # TODO(Day 16) #4: a message whose AttemptCount has already reached its
                # MaxAttempts (its last delivery died with its worker, and was counted) is
                # dead-lettered here instead of delivered again:
                # self.dead_letter_at_claim(m, now), and continue.
                lease = time_text(self.lab.now_ms + self.cfg.lease_ms)
                # TODO(Day 16) #1: count the attempt here, at claim time:
                # AttemptCount = AttemptCount + 1 in this UPDATE, and m["attempt"] += 1, so
                # that m["attempt"] is this delivery's number when you record it.
                self.db.execute(
                    """UPDATE OutboxMessages SET Status = 'Processing', LockedBy = ?, LockedUntilUtc = ?,
                              ClaimToken = ClaimToken + 1 WHERE Id = ?""",
                    (self.cfg.worker_id, lease, msg_id))
                batch.append(m)
            return batch

        return self.db.transaction(tx)

    def record(self, m, answer):
        """What the provider said, in one transaction, only if the message is still this
        worker's under this claim (ClaimLost when it is not)."""
        outcome, tx_id, failure = answer
        now = time_text(self.lab.now_ms)

        def tx():
            if failure is None:
                self.complete(m, outcome, tx_id, now)
                return
            # TODO(Day 16) #4: a failed attempt with attempts left (m["attempt"] <
            # m["max_attempts"], or no ceiling when m["max_attempts"] is 0) waits its
            # backoff; the last one dead-letters: self.dead_letter(m, failure, now).
            self.retry_later(m, failure, now)

        self.db.transaction(tx)

    def complete(self, m, outcome, tx_id, now):
        """An answered status check: the payment Paid with the provider's transaction id (or
        Failed when declined), the message Processed."""
        if outcome == "Paid":
            status = "Paid"
        elif outcome == "Declined":
            status, tx_id = "Failed", None  # no transaction id unless the provider issued one
        else:
            raise WorkerError(f"payment {m['key']}: the provider answered {outcome!r}")
        cur = self.db.execute(
            """UPDATE OutboxMessages SET Status = 'Processed', ProcessedAtUtc = ?,
                      LockedBy = NULL, LockedUntilUtc = NULL""" + OWNER_CHECK,
            (now, m["id"], self.cfg.worker_id, m["token"]))
        if cur.rowcount == 0:
            raise ClaimLost()
        self.db.execute(
            "UPDATE Payments SET Status = ?, ProviderTransactionId = ?, UpdatedAtUtc = ? WHERE PaymentKey = ?",
            (status, tx_id, now, m["key"]))

    def retry_later(self, m, last_error, now):
        """Puts a failed message back. Today it may be claimed again at once, forever: the
        poison message is retried until the lab stops the run."""
        # TODO(Day 16) #3: not claimable before its backoff ends:
        # NextAttemptUtc = time_text(self.lab.now_ms + backoff(self.cfg, m["attempt"])).
        cur = self.db.execute(
            """UPDATE OutboxMessages SET Status = 'Pending', LastError = ?,
                      LockedBy = NULL, LockedUntilUtc = NULL""" + OWNER_CHECK,
            (last_error, m["id"], self.cfg.worker_id, m["token"]))
        if cur.rowcount == 0:
            raise ClaimLost()

    def dead_letter(self, m, last_error, now):
        """Parks a message whose last allowed attempt failed. The payment stays
        PendingConfirmation: a dead letter stops the retries, it invents no outcome. The row
        is kept, with the error that put it there."""
        # TODO(Day 16) #4: one UPDATE behind OWNER_CHECK: Status = 'DeadLettered',
        # DeadLetteredAtUtc = now, LastError = last_error, LockedBy and LockedUntilUtc NULL;
        # when no row changed, raise ClaimLost() (see retry_later). Never delete the row,
        # never touch the payment.
        raise WorkerError(f"dead-letter message {m['id']}: not written yet (see TODO(Day 16) #4)")

    def dead_letter_at_claim(self, m, now):
        """Parks, in the claim, a message that was delivered MaxAttempts times and whose last
        delivery never recorded an answer (its worker died)."""
        # TODO(Day 16) #4: one UPDATE of message m["id"]: Status = 'DeadLettered',
        # DeadLetteredAtUtc = now, a LastError naming the deliveries (m["attempt"] of
        # m["max_attempts"]), LockedBy and LockedUntilUtc NULL. The payment stays as it is.
        raise WorkerError(f"dead-letter message {m['id']} at claim: not written yet (see TODO(Day 16) #4)")

    def next_wake(self):
        """When something may next be claimable: the earliest backoff gate of a Pending row or
        lease end of a Processing one; None when no Pending or Processing row is left."""
        count, earliest = self.db.execute(
            """SELECT COUNT(*), MIN(CASE WHEN Status = 'Pending' THEN NextAttemptUtc ELSE LockedUntilUtc END)
                 FROM OutboxMessages WHERE Status IN ('Pending', 'Processing')""").fetchone()
        if count == 0:
            return None
        return parse_time(earliest) if earliest else self.lab.now_ms


def main():
    cfg = read_config()
    lab = Lab(cfg.lab_url, cfg.token)
    lab.hello()  # always the first call: touch the database only after it
    db = Database(cfg.database, cfg.busy_timeout_ms)
    if cfg.role != "worker" or cfg.day != "16":
        raise WorkerError(f"this is the Day 16 worker: OUTBOXLAB_DAY {cfg.day!r}, OUTBOXLAB_ROLE {cfg.role!r}")
    Worker(cfg, lab, db).run()


if __name__ == "__main__":
    run(main)
