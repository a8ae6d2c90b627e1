"""Your Day 18 worker for outboxlab's grading protocol (docs/grade-protocol.md, version 1,
section 7.5): a hosted worker.

It already speaks the protocol (lab.py), claims one message at a time with a lease, counts the
attempt at claim, asks the provider, runs the message's handler (it takes scenario time),
records behind the owner and token check, waits for new work, and says done at a drain. The
numbered TODOs below are Day 18: renew the lease while the handler runs, guarded, up to a cap;
give back what it holds at a drain; wait without missing a lease's end.

    outboxlab grade session-18 -- python3 worker.py
"""

from lab import ClaimLost, Database, Lab, WorkerError, parse_time, read_config, run, time_text

# The fence every record passes: still Processing, locked by this worker, under this claim's token.
OWNER_CHECK = " WHERE Id = ? AND Status = 'Processing' AND LockedBy = ? AND ClaimToken = ?"


class Worker:
    """One hosted worker's loop: claim, ask the provider, run the handler, record; wait for new
    work; at a drain, say done."""

    def __init__(self, cfg, lab, db):
        self.cfg, self.lab, self.db = cfg, lab, db

    def run(self):
        """Serves the outbox until a drain, then says done."""
        while not self.lab.drain_by_ms:
            batch = self.claim()
            if not batch:
                self.wait()
                continue
            claimed_at = self.lab.now_ms
            for m in batch:
                m["claimed_at"], m["lease_until"] = claimed_at, claimed_at + self.cfg.lease_ms
                self.handle(m)
        self.lab.done()

    def wait(self):
        """Nothing claimable: wait for new work."""
        # TODO(Day 18) #5: a message whose worker died is claimable once its lease ends: wait
        # until the earliest lease end (self.next_wake()) + 1 ms, or with no time only when no
        # Pending or Processing row is left (next_wake() is None). Never look again sooner with
        # nothing changed (cfg.poll_ms).
        self.lab.wait()

    def handle(self, m):
        """Asks the provider, runs the handler, records the answer."""
        answer = self.lab.status(m["key"], m["id"])  # outside any transaction: a lab call
        while True:
            if self.lab.drain_by_ms:
                # TODO(Day 18) #4: a drain: give the message back (self.release(m)) instead of
                # leaving it Processing until its lease ends.
                return
            # TODO(Day 18) #1: a handler may run longer than the lease. Ask the handler to return
            # at the renewal's due time (until_ms = m["lease_until"] - cfg.renew_margin_ms); once
            # that time has come, renew (self.renew) to now + cfg.lease_ms and go on; a refused
            # renewal means the claim is lost: return without recording.
            # TODO(Day 18) #3: never renew past m["claimed_at"] + cfg.renew_cap_ms: once the lease
            # reaches the cap, run the handler to its end (no until_ms).
            if self.lab.handler(m["key"], m["id"]):
                break
        try:
            self.record(m, answer)
        except ClaimLost:
            pass  # the new owner finishes it

    def renew(self, m, until_ms):
        """Extends the lease to until_ms; False when the renewal was refused."""
        # TODO(Day 18) #2: one UPDATE in self.db.transaction setting LockedUntilUtc =
        # time_text(until_ms) behind OWNER_CHECK AND LockedUntilUtc >= now: a renewal never
        # revives a claim that ended or that another worker holds. Then m["lease_until"] = until_ms.
        raise WorkerError(f"renew message {m['id']}: not written yet (see TODO(Day 18) #2)")

    def release(self, m):
        """Gives a message back at a drain."""
        # TODO(Day 18) #4: one UPDATE behind OWNER_CHECK: Status = 'Pending', LockedBy and
        # LockedUntilUtc NULL, AttemptCount = AttemptCount - 1 (the delivery never ran to an
        # answer: a drain does not count an attempt).
        raise WorkerError(f"release message {m['id']}: not written yet (see TODO(Day 18) #4)")

    def claim(self):
        """Up to BATCH_SIZE claimable messages in one transaction, oldest first; the attempt is
        counted here, at delivery."""
        now = time_text(self.lab.now_ms)

        def tx():
            rows = self.db.execute(
                """SELECT Id, MessageKey, AttemptCount, MaxAttempts, ClaimToken FROM OutboxMessages
                    WHERE (Status = 'Pending' OR (Status = 'Processing' AND LockedUntilUtc < ?))
                      AND (NextAttemptUtc IS NULL OR NextAttemptUtc <= ?)
                    ORDER BY CreatedAtUtc, Id LIMIT ?""", (now, now, self.cfg.batch_size)).fetchall()
            batch = []
            for msg_id, key, attempts, max_attempts, token in rows:
                lease = time_text(self.lab.now_ms + self.cfg.lease_ms)
                self.db.execute(
                    """UPDATE OutboxMessages SET Status = 'Processing', LockedBy = ?, LockedUntilUtc = ?,
                              ClaimToken = ClaimToken + 1, AttemptCount = AttemptCount + 1 WHERE Id = ?""",
                    (self.cfg.worker_id, lease, msg_id))
                batch.append({"id": msg_id, "key": key, "attempt": attempts + 1, "token": token + 1})
            return batch

        return self.db.transaction(tx)

    def record(self, m, answer):
        """The payment Paid with the provider's transaction id (or Failed when declined), the
        message Processed, in one transaction, only if it is still this worker's claim."""
        outcome, tx_id, failure = answer
        if failure is not None or outcome not in ("Paid", "Declined"):
            raise WorkerError(f"payment {m['key']}: the provider answered {outcome!r} {failure!r}")
        now = time_text(self.lab.now_ms)
        status = "Paid" if outcome == "Paid" else "Failed"

        def tx():
            cur = self.db.execute(
                """UPDATE OutboxMessages SET Status = 'Processed', ProcessedAtUtc = ?,
                          LockedBy = NULL, LockedUntilUtc = NULL""" + OWNER_CHECK,
                (now, m["id"], self.cfg.worker_id, m["token"]))
            if cur.rowcount == 0:
                raise ClaimLost()
            self.db.execute(
                "UPDATE Payments SET Status = ?, ProviderTransactionId = ?, UpdatedAtUtc = ? WHERE PaymentKey = ?",
                (status, tx_id if status == "Paid" else None, now, m["key"]))

        self.db.transaction(tx)

    def next_wake(self):
        """When something may next be claimable: the earliest lease end of a Processing row (or
        backoff gate of a Pending one); None when no Pending or Processing row is left."""
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
    if cfg.role != "worker" or cfg.day != "18":
        raise WorkerError(f"this is the Day 18 worker: OUTBOXLAB_DAY {cfg.day!r}, OUTBOXLAB_ROLE {cfg.role!r}")
    Worker(cfg, lab, db).run()


if __name__ == "__main__":
    run(main)
