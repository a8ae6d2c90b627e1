"""What every Python starter of outboxlab shares, and you need not change.

The lab's environment (section 2 of docs/grade-protocol.md), its calls over
HTTP, one at a time (section 5), and the SQLite connection (section 3).
Standard library only: sqlite3, urllib.request, json. worker.py, beside this
file, is the Day's loop, with what is left to you.

PostgreSQL: Python's standard library has no driver for it, so this file
speaks SQLite only, which is what `outboxlab grade` uses unless it is given
--database. Graded on PostgreSQL it exits with a message saying so. To grade
on PostgreSQL, install a driver (pip install "psycopg[binary]") and give
Database a PostgreSQL branch: psycopg.connect(url, autocommit=True) with the
OUTBOXLAB_DATABASE URL unchanged, %s placeholders instead of ?, BEGIN instead
of BEGIN IMMEDIATE, and SELECT ... FOR UPDATE SKIP LOCKED in the claim.
"""

import json
import os
import sqlite3
import sys
import urllib.error
import urllib.request
from datetime import datetime, timezone


def time_text(ms):
    """A time as the database stores it: 2026-01-16T09:00:00.201Z (never isoformat())."""
    return datetime.fromtimestamp(ms / 1000, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def parse_time(text):
    """A stored time back to epoch milliseconds."""
    t = datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc)
    return int(t.timestamp() * 1000 + 0.5)


class WorkerError(Exception):
    """An error that ends the worker with its one line on stderr and exit status 1."""


class RunOver(Exception):
    """The lab answered 410: the run is over (a limit was reached); exit at once."""


class ClaimLost(Exception):
    """A record refused by the owner and token check: another worker owns the message now."""


class Config:
    """What the lab tells a worker through its environment (section 2)."""

    def __init__(self, env):
        def num(name, default):
            v = env.get(name, "")
            try:
                return int(v) if v != "" else default
            except ValueError:
                raise WorkerError(f"{name} {v!r} is not a number") from None

        def required(name):
            v = env.get(name, "")
            if v == "":
                raise WorkerError(f"{name} is not set")
            return v

        self.day = env.get("OUTBOXLAB_DAY", "")
        self.role = env.get("OUTBOXLAB_ROLE", "") or "worker"
        self.lab_url = required("OUTBOXLAB_LAB_URL")
        self.token = required("OUTBOXLAB_TOKEN")  # a secret: never print it
        self.worker_id = required("OUTBOXLAB_WORKER_ID")
        self.db_kind = env.get("OUTBOXLAB_DB_KIND", "") or "sqlite"
        self.database = required("OUTBOXLAB_DATABASE")
        self.max_attempts = num("OUTBOXLAB_MAX_ATTEMPTS", 0)  # the Day's; each row carries its own
        self.base_backoff_ms = num("OUTBOXLAB_BASE_BACKOFF_MS", 200)  # the backoff after the first failure
        self.max_backoff_ms = num("OUTBOXLAB_MAX_BACKOFF_MS", 0)  # the cap on one backoff; 0: no cap
        self.lease_ms = num("OUTBOXLAB_LEASE_MS", 30000)
        self.batch_size = num("OUTBOXLAB_BATCH_SIZE", 10)
        self.busy_timeout_ms = num("OUTBOXLAB_BUSY_TIMEOUT_MS", 5000)
        # Day 17's redrive (section 7.3).
        self.approver = env.get("OUTBOXLAB_APPROVER", "")
        self.reason = env.get("OUTBOXLAB_REASON", "")
        self.redrive_batch = num("OUTBOXLAB_REDRIVE_BATCH", 1)
        self.redrive_interval_ms = num("OUTBOXLAB_REDRIVE_INTERVAL_MS", 1000)
        self.redrive_attempts = num("OUTBOXLAB_REDRIVE_ATTEMPTS", 1)
        # Day 18: renew a lease this long before it ends, never past the cap from the claim.
        self.renew_margin_ms = num("OUTBOXLAB_RENEW_MARGIN_MS", 10000)
        self.renew_cap_ms = num("OUTBOXLAB_RENEW_CAP_MS", 120000)
        self.poll_ms = num("OUTBOXLAB_POLL_MS", 1000)
        if self.batch_size < 1 or self.redrive_batch < 1:
            raise WorkerError("OUTBOXLAB_BATCH_SIZE and OUTBOXLAB_REDRIVE_BATCH must be at least 1")


def read_config():
    """The environment of a run of protocol 1, or a WorkerError saying what is wrong with it."""
    if os.environ.get("OUTBOXLAB_PROTOCOL") != "1":
        raise WorkerError(f"OUTBOXLAB_PROTOCOL is {os.environ.get('OUTBOXLAB_PROTOCOL', '')!r}: "
                          "this worker speaks protocol 1 only (run it with outboxlab grade)")
    cfg = Config(os.environ)
    if cfg.db_kind != "sqlite":
        raise WorkerError(f"OUTBOXLAB_DB_KIND is {cfg.db_kind!r}: this Python worker speaks SQLite only "
                          "(the standard library has no PostgreSQL driver): grade it without --database, "
                          "or see lab.py for what PostgreSQL needs")
    return cfg


class Lab:
    """The lab's clock and provider over HTTP, one call at a time (section 5). It remembers the
    time of the last answer: every timestamp the worker writes comes from there (now_ms)."""

    def __init__(self, url, token):
        self.url, self.token = url, token
        self.now_ms = 0  # the lab's clock at the last answer, epoch milliseconds
        self.drain_by_ms = 0  # Day 18: the deadline of a drain an answer announced; 0: none

    def call(self, path, body):
        """POST body to path; returns (status code, answer). A 410 raises RunOver."""
        req = urllib.request.Request(self.url + path, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json",
                                              "Authorization": "Bearer " + self.token})
        try:
            # An answer may take a while: the other workers run in the meantime.
            with urllib.request.urlopen(req, timeout=600) as resp:
                code, data = resp.status, resp.read()
        except urllib.error.HTTPError as e:
            code, data = e.code, e.read()
        except OSError as e:
            raise WorkerError(f"{path}: {e}") from None
        try:
            answer = json.loads(data or b"{}")
        except ValueError:
            raise WorkerError(f"{path}: answer {code} is not JSON") from None
        if answer.get("now_ms"):
            self.now_ms = answer["now_ms"]
        if answer.get("drain"):
            self.drain_by_ms = answer.get("drain_deadline_ms") or 1
        if code == 410:
            raise RunOver(answer.get("error", ""))
        return code, answer

    def must(self, path, body):
        code, answer = self.call(path, body)
        if code != 200:
            raise WorkerError(f"{path}: {code} {answer.get('error', '')}")
        return answer

    def hello(self):
        """Always the first call."""
        answer = self.must("/v1/hello", {"language": "python"})
        if answer.get("protocol") != 1:
            raise WorkerError(f"hello: the lab speaks protocol {answer.get('protocol')}, this worker 1")

    def sleep_until(self, until_ms):
        """Returns once the lab's clock has reached until_ms and the lab has chosen this worker again."""
        self.must("/v1/clock/sleep", {"until_ms": until_ms})

    def status(self, payment_key, message_id):
        """The provider's answer: ("Paid", tx id, None), ("Declined", None, None), or
        (None, None, error text) for a status check that failed (503)."""
        code, answer = self.call("/v1/provider/status", {"payment_key": payment_key, "message_id": message_id})
        if code == 503 and answer.get("error"):
            return None, None, answer["error"]
        if code != 200:
            raise WorkerError(f"/v1/provider/status: {code} {answer.get('error', '')}")
        return answer.get("outcome"), answer.get("transaction_id"), None

    def done(self):
        """Nothing left to do: then exit 0."""
        self.must("/v1/done", {})

    def handler(self, payment_key, message_id, until_ms=0):
        """Day 18: run the message's handler (it takes scenario time). True once it finished; False
        when it returned early, at until_ms (when not 0) or at a drain."""
        body = {"payment_key": payment_key, "message_id": message_id}
        if until_ms:
            body["until_ms"] = until_ms
        return bool(self.must("/v1/handler/run", body).get("finished"))

    def wait(self, until_ms=0):
        """Day 18: wait for new work; returns when the lab inserts some, at until_ms (when not 0),
        or at a drain."""
        self.must("/v1/work/wait", {"until_ms": until_ms} if until_ms else {})


class Database:
    """The one connection to the lab's SQLite file, in autocommit mode: every transaction is
    your own BEGIN IMMEDIATE ... COMMIT (transaction), and none stays open across a lab call."""

    def __init__(self, path, busy_timeout_ms):
        if sqlite3.sqlite_version_info < (3, 37, 0):
            raise WorkerError(f"this Python's sqlite3 is SQLite {sqlite3.sqlite_version}: the lab's STRICT "
                              "tables need 3.37 or newer (Python 3.11's has 3.40)")
        self.conn = sqlite3.connect(path, isolation_level=None)
        self.conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")  # journal_mode stays the lab's

    def execute(self, sql, args=()):
        return self.conn.execute(sql, args)

    def transaction(self, fn):
        """fn() inside BEGIN IMMEDIATE ... COMMIT; rolled back if it raises (ClaimLost too)."""
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            result = fn()
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")
        return result


def run(main):
    """Runs main() as the lab expects a worker to end: exit 0 after done, 1 with one line on stderr."""
    try:
        main()
    except RunOver as e:
        sys.exit(f"worker: the run is over: {e}")
    except WorkerError as e:
        sys.exit(f"worker: {e}")
