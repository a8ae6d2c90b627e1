package main

import (
	"database/sql"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// redrive is Day 17's audited redrive (OUTBOXLAB_ROLE=redrive).
func redrive(db *sql.DB) {
	approver, reason := os.Getenv("OUTBOXLAB_APPROVER"), os.Getenv("OUTBOXLAB_REASON")
	batchSize, every, extra := env("REDRIVE_BATCH"), env("REDRIVE_INTERVAL_MS"), env("REDRIVE_ATTEMPTS")
	if bug == "one-batch" {
		batchSize = 1000
	}
	type entry struct {
		id, attempts int64
		key          string
	}
	rows, err := db.Query(`SELECT Id, MessageKey, AttemptCount FROM OutboxMessages WHERE Status = 'DeadLettered' ORDER BY Id`)
	if err != nil {
		fail(err)
	}
	var all []entry
	var keys []string
	for rows.Next() {
		var e entry
		rows.Scan(&e.id, &e.key, &e.attempts)
		all = append(all, e)
		keys = append(keys, e.key)
	}
	rows.Close()
	_, ans := call("/v1/clock/now", map[string]any{})
	now := nowMS(ans)
	exec := func(tx *sql.Tx, query string, args ...any) {
		if _, err := tx.Exec(q(query), args...); err != nil {
			fail(fmt.Errorf("%s: %w", strings.Fields(query)[0], err))
		}
	}
	tx, _ := db.Begin()
	if bug != "no-audit" {
		exec(tx, `INSERT INTO AuditLog (AtUtc, Actor, Action, Detail) VALUES (?, ?, 'redrive-approved', ?)`,
			iso(now), approver, fmt.Sprintf("approver %s; reason %s; entries %s", approver, reason, strings.Join(keys, ",")))
	}
	tx.Commit()
	for b := 0; int64(b)*batchSize < int64(len(all)); b++ {
		batch := all[int64(b)*batchSize : min(int64(b+1)*batchSize, int64(len(all)))]
		tx, _ := db.Begin()
		for _, e := range batch {
			exec(tx, `INSERT INTO Redrives (MessageId, MessageKey, Generation, Batch, Approver, Reason, RequestedAtUtc,
				OriginalAttemptCount, OriginalMaxAttempts, OriginalLastError, OriginalDeadLetteredAtUtc)
				SELECT Id, MessageKey, 1, ?, ?, ?, ?, AttemptCount, MaxAttempts, LastError, DeadLetteredAtUtc
				FROM OutboxMessages WHERE Id = ?`, b+1, approver, reason, iso(now), e.id)
			count := "AttemptCount"
			if bug == "reset-counters" {
				count = "0"
			}
			exec(tx, `UPDATE OutboxMessages SET Status = 'Pending', AttemptCount = `+count+`, MaxAttempts = AttemptCount + ?,
				NextAttemptUtc = NULL WHERE Id = ? AND Status = 'DeadLettered'`, extra, e.id)
		}
		tx.Commit()
		wake := now + every
		for {
			_, ans := call("/v1/clock/sleep", map[string]any{"until_ms": wake})
			now = nowMS(ans)
			var next sql.NullString
			var live int
			ids := make([]string, len(batch))
			for i, e := range batch {
				ids[i] = strconv.FormatInt(e.id, 10)
			}
			db.QueryRow(`SELECT count(*), MIN(coalesce(NextAttemptUtc, LockedUntilUtc)) FROM OutboxMessages
				WHERE Status IN ('Pending', 'Processing') AND Id IN (`+strings.Join(ids, ",")+`)`).Scan(&live, &next)
			if live == 0 {
				break
			}
			wake = now + 1
			if t, err := time.Parse("2006-01-02T15:04:05.000Z", next.String); err == nil && t.UnixMilli() >= now {
				wake = t.UnixMilli() + 1
			}
		}
		failed := false
		for _, e := range batch {
			var status string
			db.QueryRow(q(`SELECT Status FROM OutboxMessages WHERE Id = ?`), e.id).Scan(&status)
			var tx *sql.Tx
			if status == "Processed" {
				_, ans := call("/v1/provider/status", map[string]any{"payment_key": e.key, "message_id": e.id})
				txID, _ := ans["transaction_id"].(string)
				var id any
				if txID != "" {
					id = txID
				}
				tx, _ = db.Begin()
				exec(tx, `UPDATE Redrives SET Outcome = 'Closed', VerifiedTransactionId = ?, ClosedAtUtc = ? WHERE MessageId = ?`,
					id, iso(nowMS(ans)), e.id)
			} else {
				failed = true
				tx, _ = db.Begin()
				exec(tx, `UPDATE Redrives SET Outcome = 'DeadLetteredAgain' WHERE MessageId = ?`, e.id)
			}
			tx.Commit()
		}
		if failed {
			break
		}
	}
	call("/v1/done", map[string]any{})
}
