"""Your worker for outboxlab's poison-counter experiment (docs/grade-protocol.md, version 1,
section 7.4).

It is Day 16's worker with the attempt counted where a catch block counts it: when an attempt
fails. The lethal message never fails, it kills the process, so it is never counted. The
numbered TODOs below move the count to delivery.

    outboxlab grade poison-counter -- python3 worker.py
"""

from lab import ClaimLost, Database, Lab, WorkerError, parse_time, read_config, run, time_text

# An uncapped backoff stops doubling here (30 days, far past the lab's one-day clock).
MAX_SLEEP_MS = 30 * 24 * 3600 * 1000


def backoff(cfg, n):
    """The wait after the n-th failed attempt: base x 2^(n-1), capped at cfg.max_backoff_ms
    when that is not 0."""
    d = cfg.base_backoff_ms
    for _ in range(1, n):
        if d >= MAX_SLEEP_MS:
            break
        d *= 2
    if cfg.max_backoff_ms > 0:
        d = min(d, cfg.max_backoff_ms)
    return d


# The fence every record passes: still Processing, locked by this worker, under this claim's token.
OWNER_CHECK = " WHERE Id = ? AND Status = 'Processing' AND LockedBy = ? AND ClaimToken = ?"

# Where this worker counts an attempt today: in the catch, when the attempt has failed. A
# crash never gets there.
# TODO(poison-counter) #1: once the claim counts, count nothing here ("").
COUNTED_ON_CATCH = ", AttemptCount = AttemptCount + 1"


class Worker:
    """One worker process's loop over the outbox: claim, ask the provider, record, back off
    or dead-letter, sleep, done (section 7.1)."""

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
        Processing with an expired lease, and past their backoff gate."""
        now = time_text(self.lab.now_ms)

        def tx():
            rows = self.db.execute(
                """SELECT Id, MessageKey, AttemptCount, MaxAttempts, ClaimToken FROM OutboxMessages
                    WHERE (Status = 'Pending' OR (Status = 'Processing' AND LockedUntilUtc < ?))
                      AND (NextAttemptUtc IS NULL OR NextAttemptUtc <= ?)
                    ORDER BY CreatedAtUtc, Id LIMIT ?""", (now, now, self.cfg.batch_size)).fetchall()
            batch = []
            for msg_id, key, attempts, max_attempts, token in rows:
                m = {"id": msg_id, "key": key, "attempt": attempts,
                     # the row's MaxAttempts; 0: no ceiling
                     "max_attempts": max_attempts if max_attempts is not None else self.cfg.max_attempts,
                     "token": token + 1}
                # TODO(poison-counter) #2: a message whose AttemptCount has reached its
                # MaxAttempts was delivered that often and never recorded: every delivery
                # killed its worker. Dead-letter it here instead of delivering it again:
                # self.dead_letter_at_claim(m, now), and continue.
                lease = time_text(self.lab.now_ms + self.cfg.lease_ms)
                # TODO(poison-counter) #1: count the delivery here, committed with the claim
                # before any work: AttemptCount = AttemptCount + 1 in this UPDATE and
                # m["attempt"] += 1 (then drop the count in COUNTED_ON_CATCH and in record).
                self.db.execute(
                    """UPDATE OutboxMessages SET Status = 'Processing', LockedBy = ?, LockedUntilUtc = ?,
                              ClaimToken = ClaimToken + 1 WHERE Id = ?""",
                    (self.cfg.worker_id, lease, msg_id))
                batch.append(m)
            return batch

        return self.db.transaction(tx)

    def dead_letter_at_claim(self, m, now):
        """Parks a message that was delivered MaxAttempts times without ever being recorded:
        each delivery killed its worker."""
        # TODO(poison-counter) #2: one UPDATE of message m["id"]: Status = 'DeadLettered',
        # DeadLetteredAtUtc = now, a LastError naming the deliveries (m["attempt"] of
        # m["max_attempts"]), LockedBy and LockedUntilUtc NULL.
        raise WorkerError(f"dead-letter message {m['id']} at claim: not written yet (see TODO(poison-counter) #2)")

    def record(self, m, answer):
        """What the provider said, in one transaction, only if the message is still this
        worker's under this claim (ClaimLost when it is not)."""
        outcome, tx_id, failure = answer
        now = time_text(self.lab.now_ms)
        attempt = m["attempt"]
        if failure is not None:
            attempt += 1  # the catch block's count: see COUNTED_ON_CATCH

        def tx():
            if failure is None:
                self.complete(m, outcome, tx_id, now)
            elif not m["max_attempts"] or attempt < m["max_attempts"]:
                self.retry_later(m, attempt, failure, now)
            else:
                self.dead_letter(m, failure, now)

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
        self.fenced("""UPDATE OutboxMessages SET Status = 'Processed', ProcessedAtUtc = ?,
                              LockedBy = NULL, LockedUntilUtc = NULL""" + OWNER_CHECK, (now,), m)
        self.db.execute(
            "UPDATE Payments SET Status = ?, ProviderTransactionId = ?, UpdatedAtUtc = ? WHERE PaymentKey = ?",
            (status, tx_id, now, m["key"]))

    def retry_later(self, m, attempt, last_error, now):
        """Puts a failed message back, not claimable before its backoff ends."""
        next_attempt = time_text(self.lab.now_ms + backoff(self.cfg, attempt))
        self.fenced("""UPDATE OutboxMessages SET Status = 'Pending', NextAttemptUtc = ?, LastError = ?,
                              LockedBy = NULL, LockedUntilUtc = NULL""" + COUNTED_ON_CATCH + OWNER_CHECK,
                    (next_attempt, last_error), m)

    def dead_letter(self, m, last_error, now):
        """Parks a message whose last allowed attempt failed. The payment stays
        PendingConfirmation: a dead letter stops the retries, it invents no outcome."""
        self.fenced("""UPDATE OutboxMessages SET Status = 'DeadLettered', DeadLetteredAtUtc = ?, LastError = ?,
                              LockedBy = NULL, LockedUntilUtc = NULL""" + COUNTED_ON_CATCH + OWNER_CHECK,
                    (now, last_error), m)

    def fenced(self, sql, args, m):
        """One UPDATE behind OWNER_CHECK; ClaimLost when it changed no row."""
        cur = self.db.execute(sql, (*args, m["id"], self.cfg.worker_id, m["token"]))
        if cur.rowcount == 0:
            raise ClaimLost()

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
    if cfg.role != "worker" or cfg.day != "poison-counter":
        raise WorkerError(f"this is the poison-counter worker: OUTBOXLAB_DAY {cfg.day!r}, "
                          f"OUTBOXLAB_ROLE {cfg.role!r}")
    Worker(cfg, lab, db).run()


if __name__ == "__main__":
    run(main)
