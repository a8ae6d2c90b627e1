"""Your Day 17 redrive for outboxlab's grading protocol (docs/grade-protocol.md, version 1,
section 7.3).

Today it is what someone without a redrive procedure does: one UPDATE puts every dead letter
back to Pending with its counters and history wiped, the lab's own worker takes them again,
and nobody can tell afterwards who did it, why, or whether the payments really went through.
The numbered TODOs below make it an audited redrive.

    outboxlab grade session-17 -- python3 worker.py
"""

from lab import Database, Lab, WorkerError, parse_time, read_config, run, time_text


class Redrive:
    """Day 17's redrive (section 7.3). Today a blind one: every dead letter back to Pending at
    once, counters and history wiped, nothing recorded, nothing verified."""

    def __init__(self, cfg, lab, db):
        self.cfg, self.lab, self.db = cfg, lab, db

    def run(self):
        """Redrives the dead letters, then says done."""
        dead = self.dead_letters()
        # TODO(Day 17) #2: before any release, one AuditLog row (AtUtc = now, Actor, Action,
        # Detail; MessageId NULL) naming the approver, the reason and the MessageKey of every
        # entry, in its own transaction.

        # TODO(Day 17) #4: release in batches of at most cfg.redrive_batch entries, numbered
        # from 1, each batch in one transaction, wait_settled between them (it sleeps
        # cfg.redrive_interval_ms, then on until the lab's worker has settled the batch);
        # verify each batch before the next, and stop at the first batch with an entry
        # dead-lettered again (leave the rest parked).
        self.release_all()
        self.wait_settled(dead)
        # TODO(Day 17) #5: verify: for each entry that came back Processed, ask the provider
        # (self.lab.status(key, id), outside any transaction) and close its Redrives row only
        # when the answer and the payment row agree: Outcome = 'Closed',
        # VerifiedTransactionId = the answer's id (NULL when declined), ClosedAtUtc = now.
        # One that came back DeadLettered: Outcome = 'DeadLetteredAgain'.
        self.lab.done()

    def dead_letters(self):
        """The messages to redrive, oldest first, as they are before the redrive: (Id,
        MessageKey, AttemptCount, MaxAttempts, LastError, DeadLetteredAtUtc)."""
        return self.db.execute(
            """SELECT Id, MessageKey, AttemptCount, MaxAttempts, LastError, DeadLetteredAtUtc
                 FROM OutboxMessages WHERE Status = 'DeadLettered' ORDER BY CreatedAtUtc, Id""").fetchall()

    def release_all(self):
        """The blind redrive: one UPDATE, every dead letter at once."""
        # TODO(Day 17) #3: keep the counters: never reset AttemptCount; set
        # MaxAttempts = AttemptCount + cfg.redrive_attempts, NextAttemptUtc NULL. And in the
        # same transaction, one Redrives row per entry (MessageId, MessageKey, Generation 1 for
        # a first redrive, Batch, Approver, Reason, RequestedAtUtc = now, and the Original...
        # columns from the dead letter as it was; see --schema of session-17-audited-redrive).
        self.db.transaction(lambda: self.db.execute(
            """UPDATE OutboxMessages SET Status = 'Pending', AttemptCount = 0, LastError = NULL,
                      NextAttemptUtc = NULL, DeadLetteredAtUtc = NULL
                WHERE Status = 'DeadLettered'"""))

    def wait_settled(self, entries):
        """Sleeps the interval, then on until every entry is Processed or DeadLettered again:
        the lab's worker drains them while this one sleeps."""
        wake = self.lab.now_ms + self.cfg.redrive_interval_ms
        while True:
            self.lab.sleep_until(wake)
            live, gates = 0, []
            for entry in entries:
                status, gate = self.db.execute(
                    """SELECT Status, CASE WHEN Status = 'Pending' THEN NextAttemptUtc ELSE LockedUntilUtc END
                         FROM OutboxMessages WHERE Id = ?""", (entry[0],)).fetchone()
                if status in ("Pending", "Processing"):
                    live += 1
                    if gate:
                        gates.append(gate)
            if live == 0:
                return
            wake = self.lab.now_ms + self.cfg.redrive_interval_ms
            if gates:
                wake = max(parse_time(min(gates)) + 1, self.lab.now_ms + 1)


def main():
    cfg = read_config()
    # TODO(Day 17) #1: refuse to run without OUTBOXLAB_APPROVER and OUTBOXLAB_REASON
    # (cfg.approver, cfg.reason): raise WorkerError("refusing to redrive: ...") before any lab
    # call, touching nothing.
    lab = Lab(cfg.lab_url, cfg.token)
    lab.hello()  # always the first call: touch the database only after it
    db = Database(cfg.database, cfg.busy_timeout_ms)
    if cfg.role != "redrive" or cfg.day != "17":
        raise WorkerError(f"this is the Day 17 redrive: OUTBOXLAB_DAY {cfg.day!r}, OUTBOXLAB_ROLE {cfg.role!r}")
    Redrive(cfg, lab, db).run()


if __name__ == "__main__":
    run(main)
