"""The Python reference worker of outboxlab's grading protocol, version 1.

Standard library only (sqlite3, urllib.request, json); SQLite only. It reads
like docs/grade-protocol.md: claim, ask the provider, record, back off or
dead-letter, sleep, done (Days 15, 16 and poison-counter), and Day 17's
audited redrive (OUTBOXLAB_ROLE=redrive).

    outboxlab grade session-16 -- python3 workers/reference/python/worker.py
"""

import json
import os
import sqlite3
import sys
import urllib.error
import urllib.request
from datetime import datetime, timezone

MAX_SLEEP_MS = 30 * 24 * 3600 * 1000  # an uncapped backoff stops doubling here


def time_text(ms):
    """A time as the database stores it: 2026-01-16T09:00:00.201Z (never isoformat())."""
    return datetime.fromtimestamp(ms / 1000, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def parse_time(text):
    """A stored time back to epoch milliseconds."""
    t = datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc)
    return int(t.timestamp() * 1000 + 0.5)


class Config:
    """What the lab tells a worker through its environment (section 2)."""

    def __init__(self, env):
        def num(name, default):
            v = env.get(name, "")
            return int(v) if v != "" else default

        self.day = env.get("OUTBOXLAB_DAY", "")
        self.role = env.get("OUTBOXLAB_ROLE", "") or "worker"
        self.lab_url = env["OUTBOXLAB_LAB_URL"]
        self.token = env["OUTBOXLAB_TOKEN"]
        self.worker_id = env["OUTBOXLAB_WORKER_ID"]
        self.db_kind = env.get("OUTBOXLAB_DB_KIND", "sqlite")
        self.database = env["OUTBOXLAB_DATABASE"]
        self.max_attempts = num("OUTBOXLAB_MAX_ATTEMPTS", 0)
        self.base_backoff_ms = num("OUTBOXLAB_BASE_BACKOFF_MS", 200)
        self.max_backoff_ms = num("OUTBOXLAB_MAX_BACKOFF_MS", 0)
        self.lease_ms = num("OUTBOXLAB_LEASE_MS", 30000)
        self.batch_size = num("OUTBOXLAB_BATCH_SIZE", 10)
        self.busy_timeout_ms = num("OUTBOXLAB_BUSY_TIMEOUT_MS", 5000)
        self.approver = env.get("OUTBOXLAB_APPROVER", "")
        self.reason = env.get("OUTBOXLAB_REASON", "")
        self.redrive_batch = num("OUTBOXLAB_REDRIVE_BATCH", 1)
        self.redrive_interval_ms = num("OUTBOXLAB_REDRIVE_INTERVAL_MS", 1000)
        self.redrive_attempts = num("OUTBOXLAB_REDRIVE_ATTEMPTS", 1)
        # Day 18: renew a lease RENEW_MARGIN_MS before it ends, never past RENEW_CAP_MS from the claim.
        self.renew_margin_ms = num("OUTBOXLAB_RENEW_MARGIN_MS", 10000)
        self.renew_cap_ms = num("OUTBOXLAB_RENEW_CAP_MS", 120000)
        self.poll_ms = num("OUTBOXLAB_POLL_MS", 1000)

    def backoff(self, n):
        """The wait after the n-th failed attempt: base x 2^(n-1), capped when the cap is not 0."""
        d = self.base_backoff_ms
        for _ in range(1, n):
            if d >= MAX_SLEEP_MS:
                break
            d *= 2
        if self.max_backoff_ms > 0:
            d = min(d, self.max_backoff_ms)
        return d


class RunOver(Exception):
    """The lab answered 410: the run is over."""


class Lab:
    """The lab's clock and provider over HTTP, one call at a time (section 5)."""

    def __init__(self, url, token):
        self.url, self.token = url, token
        self.now_ms = 0  # the lab's time at the last answer: every timestamp comes from here
        self.drain_by_ms = 0  # Day 18: the deadline of a drain an answer announced; 0: none

    def call(self, path, body):
        """POST body to path; returns (status code, answer)."""
        req = urllib.request.Request(self.url + path, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json",
                                              "Authorization": "Bearer " + self.token})
        try:
            with urllib.request.urlopen(req, timeout=600) as resp:
                code, data = resp.status, resp.read()
        except urllib.error.HTTPError as e:
            code, data = e.code, e.read()
        answer = json.loads(data or b"{}")
        if answer.get("now_ms"):
            self.now_ms = answer["now_ms"]
        if answer.get("drain"):
            self.drain_by_ms = answer.get("drain_deadline_ms", 1)
        if code == 410:
            raise RunOver(answer.get("error", ""))
        return code, answer

    def must(self, path, body):
        code, answer = self.call(path, body)
        if code != 200:
            raise RuntimeError(f"{path}: {code} {answer.get('error', '')}")
        return answer

    def hello(self):
        answer = self.must("/v1/hello", {"language": "python"})
        if answer.get("protocol") != 1:
            raise RuntimeError(f"hello: the lab speaks protocol {answer.get('protocol')}, this worker 1")

    def sleep_until(self, until_ms):
        self.must("/v1/clock/sleep", {"until_ms": until_ms})

    def status(self, payment_key, message_id):
        """The provider's answer: ("Paid", tx id, None), ("Declined", None, None) or (None, None, error text)."""
        code, answer = self.call("/v1/provider/status", {"payment_key": payment_key, "message_id": message_id})
        if code == 503 and answer.get("error"):
            return None, None, answer["error"]
        if code != 200:
            raise RuntimeError(f"/v1/provider/status: {code} {answer.get('error', '')}")
        return answer.get("outcome"), answer.get("transaction_id"), None

    def done(self):
        self.must("/v1/done", {})

    def handler(self, payment_key, message_id, until_ms):
        """Day 18: run the handler; True once it finished, False when it returned early (at until_ms, or a drain)."""
        body = {"payment_key": payment_key, "message_id": message_id}
        if until_ms:
            body["until_ms"] = until_ms
        return bool(self.must("/v1/handler/run", body).get("finished"))

    def wait(self, until_ms):
        """Day 18: wait for new work, until until_ms when given, or a drain."""
        self.must("/v1/work/wait", {"until_ms": until_ms} if until_ms else {})


class Database:
    """The one connection to the lab's SQLite file, in autocommit mode: every
    transaction is our own BEGIN IMMEDIATE ... COMMIT, none stays open across a lab call."""

    def __init__(self, path, busy_timeout_ms):
        self.conn = sqlite3.connect(path, isolation_level=None)
        self.conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")  # journal_mode stays the lab's

    def execute(self, sql, args=()):
        return self.conn.execute(sql, args)

    def transaction(self, fn):
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            result = fn()
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")
        return result


class ClaimLost(Exception):
    """A record refused by the owner and token check: another worker owns the message now."""


# The fence every record passes: still Processing, locked by us, under this claim's token.
OWNER_CHECK = " WHERE Id = ? AND Status = 'Processing' AND LockedBy = ? AND ClaimToken = ?"


class Worker:
    """One worker process's loop (section 7.1)."""

    def __init__(self, cfg, lab, db):
        self.cfg, self.lab, self.db = cfg, lab, db

    def run(self):
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
                answer = self.lab.status(m["key"], m["id"])  # outside any transaction
                try:
                    self.record(m, answer)
                except ClaimLost:
                    pass  # the new owner finishes it

    def claim(self):
        """Up to BATCH_SIZE claimable messages in one transaction, oldest first. The attempt is
        counted here, at delivery; a message whose count has reached MaxAttempts is dead-lettered
        instead of delivered again (poison-counter)."""
        now = time_text(self.lab.now_ms)

        def tx():
            rows = self.db.execute(
                """SELECT Id, MessageKey, AttemptCount, MaxAttempts, ClaimToken FROM OutboxMessages
                    WHERE (Status = 'Pending' OR (Status = 'Processing' AND LockedUntilUtc < ?))
                      AND (NextAttemptUtc IS NULL OR NextAttemptUtc <= ?)
                    ORDER BY CreatedAtUtc, Id LIMIT ?""", (now, now, self.cfg.batch_size)).fetchall()
            batch = []
            for msg_id, key, attempts, max_attempts, token in rows:
                max_attempts = max_attempts if max_attempts is not None else self.cfg.max_attempts
                if max_attempts and attempts >= max_attempts:
                    self.db.execute(
                        """UPDATE OutboxMessages SET Status = 'DeadLettered', DeadLetteredAtUtc = ?,
                                  LastError = ?, LockedBy = NULL, LockedUntilUtc = NULL WHERE Id = ?""",
                        (now, f"delivered {attempts} times (MaxAttempts {max_attempts}) and never completed: "
                              "the handler died on every delivery", msg_id))
                    continue
                lease = time_text(self.lab.now_ms + self.cfg.lease_ms)
                self.db.execute(
                    """UPDATE OutboxMessages SET Status = 'Processing', LockedBy = ?, LockedUntilUtc = ?,
                              ClaimToken = ClaimToken + 1, AttemptCount = AttemptCount + 1 WHERE Id = ?""",
                    (self.cfg.worker_id, lease, msg_id))
                batch.append({"id": msg_id, "key": key, "attempt": attempts + 1,
                              "max_attempts": max_attempts, "token": token + 1})
            return batch

        return self.db.transaction(tx)

    def record(self, m, answer):
        """What the provider said, in one transaction, only if the message is still ours."""
        outcome, tx_id, failure = answer
        now = time_text(self.lab.now_ms)
        fence = (m["id"], self.cfg.worker_id, m["token"])

        def changed(cursor):
            if cursor.rowcount == 0:
                raise ClaimLost()

        def tx():
            if failure is None:  # answered: the payment Paid (or Failed), the message Processed
                if outcome == "Paid":
                    status = "Paid"
                elif outcome == "Declined":
                    status = "Failed"
                else:
                    raise RuntimeError(f"payment {m['key']}: the provider answered {outcome!r}")
                changed(self.db.execute(
                    """UPDATE OutboxMessages SET Status = 'Processed', ProcessedAtUtc = ?,
                              LockedBy = NULL, LockedUntilUtc = NULL""" + OWNER_CHECK, (now, *fence)))
                self.db.execute(
                    "UPDATE Payments SET Status = ?, ProviderTransactionId = ?, UpdatedAtUtc = ? WHERE PaymentKey = ?",
                    (status, tx_id if status == "Paid" else None, now, m["key"]))
            elif not m["max_attempts"] or m["attempt"] < m["max_attempts"]:  # back off
                next_attempt = time_text(self.lab.now_ms + self.cfg.backoff(m["attempt"]))
                changed(self.db.execute(
                    """UPDATE OutboxMessages SET Status = 'Pending', NextAttemptUtc = ?, LastError = ?,
                              LockedBy = NULL, LockedUntilUtc = NULL""" + OWNER_CHECK,
                    (next_attempt, failure, *fence)))
            else:  # dead letter: the payment stays PendingConfirmation, the row stays
                changed(self.db.execute(
                    """UPDATE OutboxMessages SET Status = 'DeadLettered', DeadLetteredAtUtc = ?, LastError = ?,
                              LockedBy = NULL, LockedUntilUtc = NULL""" + OWNER_CHECK, (now, failure, *fence)))

        self.db.transaction(tx)

    def next_wake(self):
        """The earliest backoff gate or lease end of a live row, or None when none is left."""
        count, earliest = self.db.execute(
            """SELECT COUNT(*), MIN(CASE WHEN Status = 'Pending' THEN NextAttemptUtc ELSE LockedUntilUtc END)
                 FROM OutboxMessages WHERE Status IN ('Pending', 'Processing')""").fetchone()
        if count == 0:
            return None
        return parse_time(earliest) if earliest else self.lab.now_ms


class Hosted(Worker):
    """Day 18's hosted worker (section 7.5): the handler takes scenario time, so the lease is renewed
    RENEW_MARGIN_MS before it ends, never past RENEW_CAP_MS from the claim; with nothing to claim it waits
    for new work; once an answer announces a drain it claims nothing more, gives back what it holds
    without counting the attempt, and says done."""

    def run(self):
        while not self.lab.drain_by_ms:
            batch = self.claim()
            if not batch:
                wake = self.next_wake()
                self.lab.wait(wake + 1 if wake is not None else 0)
                continue
            claimed_at = self.lab.now_ms
            for i, m in enumerate(batch):
                if self.lab.drain_by_ms:
                    for rest in batch[i:]:
                        self.release(rest)
                    break
                m["claimed_at"], m["lease_until"] = claimed_at, claimed_at + self.cfg.lease_ms
                self.handle(m)
        self.lab.done()

    def handle(self, m):
        answer = self.lab.status(m["key"], m["id"])
        while True:
            if self.lab.drain_by_ms:
                self.release(m)
                return
            cap = m["claimed_at"] + self.cfg.renew_cap_ms
            due = m["lease_until"] - self.cfg.renew_margin_ms if m["lease_until"] < cap else 0
            if due and due <= self.lab.now_ms:
                if not self.renew(m, min(self.lab.now_ms + self.cfg.lease_ms, cap)):
                    return  # lost: the new owner finishes it
                continue
            if self.lab.handler(m["key"], m["id"], due):
                break
        try:
            self.record(m, answer)
        except ClaimLost:
            pass

    def renew(self, m, until_ms):
        """Extend the lease, only while the row is still ours under this claim and the lease has not ended."""
        now = time_text(self.lab.now_ms)

        def tx():
            return self.db.execute(
                "UPDATE OutboxMessages SET LockedUntilUtc = ?" + OWNER_CHECK + " AND LockedUntilUtc >= ?",
                (time_text(until_ms), m["id"], self.cfg.worker_id, m["token"], now)).rowcount

        if self.db.transaction(tx) != 1:
            return False
        m["lease_until"] = until_ms
        return True

    def release(self, m):
        """Give a message back at a drain: Pending, unlocked, its attempt given back."""
        self.db.transaction(lambda: self.db.execute(
            """UPDATE OutboxMessages SET Status = 'Pending', LockedBy = NULL, LockedUntilUtc = NULL,
                      AttemptCount = AttemptCount - 1""" + OWNER_CHECK, (m["id"], self.cfg.worker_id, m["token"])))


class Redrive:
    """Day 17's audited redrive (section 7.3)."""

    def __init__(self, cfg, lab, db):
        self.cfg, self.lab, self.db = cfg, lab, db

    def run(self):
        dead = self.db.execute(
            """SELECT Id, MessageKey, AttemptCount, MaxAttempts, LastError, DeadLetteredAtUtc
                 FROM OutboxMessages WHERE Status = 'DeadLettered' ORDER BY CreatedAtUtc, Id""").fetchall()
        self.approve(dead)
        size = self.cfg.redrive_batch
        for number, start in enumerate(range(0, len(dead), size), start=1):
            entries = dead[start:start + size]
            self.release(number, entries)
            self.wait_settled(entries)  # the lab's worker drains them meanwhile
            if self.verify(entries) > 0:
                break  # the cause is not fixed: leave the rest parked
        self.lab.done()

    def approve(self, dead):
        keys = ", ".join(d[1] for d in dead)
        detail = (f"approver {self.cfg.approver}; reason: {self.cfg.reason}; entries: {keys}; "
                  f"batches of {self.cfg.redrive_batch}, +{self.cfg.redrive_attempts} attempts each")
        self.db.transaction(lambda: self.db.execute(
            "INSERT INTO AuditLog (AtUtc, Actor, Action, MessageId, Detail) VALUES (?, ?, 'redrive-approved', NULL, ?)",
            (time_text(self.lab.now_ms), self.cfg.approver, detail)))

    def release(self, number, entries):
        now = time_text(self.lab.now_ms)

        def tx():
            for msg_id, key, attempts, max_attempts, last_error, dead_at in entries:
                (generation,) = self.db.execute(
                    "SELECT COUNT(*) + 1 FROM Redrives WHERE MessageId = ?", (msg_id,)).fetchone()
                self.db.execute(
                    """INSERT INTO Redrives (MessageId, MessageKey, Generation, Batch, Approver, Reason,
                              RequestedAtUtc, OriginalAttemptCount, OriginalMaxAttempts, OriginalLastError,
                              OriginalDeadLetteredAtUtc) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
                    (msg_id, key, generation, number, self.cfg.approver, self.cfg.reason, now,
                     attempts, max_attempts, last_error, dead_at))
                cur = self.db.execute(
                    """UPDATE OutboxMessages SET Status = 'Pending', MaxAttempts = AttemptCount + ?,
                              NextAttemptUtc = NULL WHERE Id = ? AND Status = 'DeadLettered'""",
                    (self.cfg.redrive_attempts, msg_id))
                if cur.rowcount != 1:
                    raise RuntimeError(f"release {key}: it is no longer dead-lettered")

        self.db.transaction(tx)

    def wait_settled(self, entries):
        wake = self.lab.now_ms + self.cfg.redrive_interval_ms
        while True:
            self.lab.sleep_until(wake)
            gates = []
            live = 0
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

    def verify(self, entries):
        """Close each Processed entry's Redrives row only when the provider and the payment agree."""
        failed = 0
        for entry in entries:
            msg_id, key = entry[0], entry[1]
            (status,) = self.db.execute("SELECT Status FROM OutboxMessages WHERE Id = ?", (msg_id,)).fetchone()
            outcome, verified = "DeadLetteredAgain", None
            if status == "Processed":
                answer_outcome, tx_id, failure = self.lab.status(key, msg_id)  # outside any transaction
                pay_status, pay_tx = self.db.execute(
                    "SELECT Status, ProviderTransactionId FROM Payments WHERE PaymentKey = ?", (key,)).fetchone()
                agrees = failure is None and (
                    (answer_outcome == "Paid" and pay_status == "Paid" and pay_tx == tx_id)
                    or (answer_outcome == "Declined" and pay_status == "Failed" and pay_tx is None))
                outcome = "Closed" if agrees else "VerificationFailed"
                verified = tx_id if agrees else None
            if outcome != "Closed":
                failed += 1
            closed_at = time_text(self.lab.now_ms) if outcome == "Closed" else None
            self.db.transaction(lambda: self.db.execute(
                """UPDATE Redrives SET Outcome = ?, VerifiedTransactionId = ?, ClosedAtUtc = ?
                    WHERE MessageId = ? AND Outcome = 'Replaying'""", (outcome, verified, closed_at, msg_id)))
        return failed


def main():
    if os.environ.get("OUTBOXLAB_PROTOCOL") != "1":
        sys.exit(f"worker: OUTBOXLAB_PROTOCOL is {os.environ.get('OUTBOXLAB_PROTOCOL')!r}: "
                 "this worker speaks protocol 1 only")
    try:
        cfg = Config(os.environ)
    except KeyError as e:
        sys.exit(f"worker: {e.args[0]} is not set")
    except ValueError as e:
        sys.exit(f"worker: a number in the environment is not one: {e}")
    if cfg.db_kind != "sqlite":
        sys.exit(f"worker: OUTBOXLAB_DB_KIND {cfg.db_kind!r}: the Python reference speaks SQLite only")
    if cfg.role == "redrive" and not (cfg.approver and cfg.reason):
        sys.exit("worker: refusing to redrive: OUTBOXLAB_APPROVER and OUTBOXLAB_REASON are both required")
    lab = Lab(cfg.lab_url, cfg.token)
    try:
        lab.hello()
        db = Database(cfg.database, cfg.busy_timeout_ms)
        if cfg.role == "redrive":
            Redrive(cfg, lab, db).run()
        elif cfg.day in ("15", "16", "poison-counter"):
            Worker(cfg, lab, db).run()
        elif cfg.day == "18":
            Hosted(cfg, lab, db).run()
        else:
            sys.exit(f"worker: OUTBOXLAB_DAY {cfg.day!r}: this worker knows 15, 16, 18 and poison-counter")
    except RunOver as e:
        sys.exit(f"worker: the run is over: {e}")


if __name__ == "__main__":
    main()
