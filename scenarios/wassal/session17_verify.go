package wassal

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/outbox"
	"outboxlab/core/provider"
)

// redriveActor is who acts for the redrive once it is approved.
const redriveActor = "redrive-1"

// verify looks at each replayed entry of a batch. A Processed one is closed
// only when a fresh status check agrees with the payment row; one that
// dead-lettered again (or disagrees) counts as failed. The Redrives row and
// the audit log say which.
func (o *session17Options) verify(ctx context.Context, run *session17Run, store *outbox.Store, clk *clock.ScenarioClock, keys []string) (failed int, err error) {
	msgs, err := store.Messages(ctx)
	if err != nil {
		return 0, err
	}
	pays, err := store.Payments(ctx)
	if err != nil {
		return 0, err
	}
	l := Ledger{Messages: msgs, Payments: pays}
	now := clk.Now()
	for _, k := range keys {
		m, _ := l.Message(k)
		outcome, action, detail, said := outcomeDeadLetteredAgain, actionFailed, "", ""
		var verifiedTx any
		switch m.Status {
		case outbox.DeadLettered:
			detail = fmt.Sprintf("%s dead-lettered again after attempt %d: %s; the original error stays in Redrives", k, m.AttemptCount, m.LastError)
			said = fmt.Sprintf("dead-lettered again (attempt %d); the original error stays in Redrives", m.AttemptCount)
		case outbox.Processed:
			pay, _ := l.Payment(k)
			a, err := run.status(opVerify).CheckStatus(ctx, k, now)
			if err == nil && agrees(a, pay) {
				outcome, action, verifiedTx = outcomeClosed, actionVerified, a.TransactionID
				detail = fmt.Sprintf("%s: status check says %s, payment row says %s → redrive closed", k, answerText(a), pay.Status)
				said = fmt.Sprintf("provider says %s, payment row %s → redrive closed", answerText(a), pay.Status)
				break
			}
			outcome, action = outcomeVerificationFailed, actionUnverified
			detail = fmt.Sprintf("%s: status check %s does not confirm payment %s → left open", k, answerOrError(a, err), pay.Status)
			said = fmt.Sprintf("provider says %s, payment row %s → left open", answerOrError(a, err), pay.Status)
		default:
			return 0, fmt.Errorf("verify %s: still %s after the batch settled", k, m.Status)
		}
		if outcome != outcomeClosed {
			failed++
		}
		err := store.InTx(ctx, func(tx *sql.Tx) error {
			_, err := store.Exec(ctx, tx, `UPDATE Redrives SET Outcome = ?, VerifiedTransactionId = ?, ClosedAtUtc = ?
				WHERE MessageId = ? AND Outcome = 'Replaying'`, string(outcome), verifiedTx, closedAt(outcome, now), m.ID)
			if err != nil {
				return fmt.Errorf("record the redrive outcome of %s: %w", k, err)
			}
			return outbox.AuditTx(ctx, tx, now, redriveActor, action, m.ID, detail)
		})
		if err != nil {
			return 0, err
		}
		run.lines = append(run.lines, eventLine(now, k, "verify: "+said))
	}
	return failed, nil
}

// agrees reports whether the provider's answer and the payment row tell the same story.
func agrees(a provider.Answer, pay outbox.Payment) bool {
	switch a.Outcome {
	case provider.Paid:
		return pay.Status == outbox.Paid && pay.ProviderTransactionID == a.TransactionID
	case provider.Declined:
		return pay.Status == outbox.Failed && pay.ProviderTransactionID == ""
	}
	return false
}

func answerOrError(a provider.Answer, err error) string {
	if err != nil {
		return "FAILED (" + err.Error() + ")"
	}
	return answerText(a)
}

func closedAt(outcome outcome, now time.Time) any {
	if outcome != outcomeClosed {
		return nil
	}
	return clock.ISO(now)
}

// halt stops the redrive after a failed batch, leaving the rest parked.
func (o *session17Options) halt(ctx context.Context, run *session17Run, store *outbox.Store, clk *clock.ScenarioClock, batch, failed, size int) error {
	now := clk.Now()
	detail := fmt.Sprintf("batch %d: %d of %d failed again; the cause is not fixed; left parked: %s", batch, failed, size, keysText(run.notRelease))
	err := store.InTx(ctx, func(tx *sql.Tx) error {
		return outbox.AuditTx(ctx, tx, now, redriveActor, actionHalted, 0, detail)
	})
	if err != nil {
		return err
	}
	run.lines = append(run.lines,
		eventLine(now, "", fmt.Sprintf("REDRIVE HALTED after batch %d: %d of %d failed again; the cause is not fixed", batch, failed, size)),
		eventLine(now, "", "  left parked: "+keysText(run.notRelease)))
	return nil
}

// finish reads the final state of a run.
func (o *session17Options) finish(ctx context.Context, run *session17Run, store *outbox.Store) error {
	var err error
	if run.ledger, err = ReadLedger(ctx, store, run.prov); err != nil {
		return err
	}
	if run.audit, err = store.Audit(ctx); err != nil {
		return err
	}
	if run.redrives, err = readRedrives(ctx, store); err != nil {
		return err
	}
	run.tables, err = store.Tables(ctx)
	return err
}

func readRedrives(ctx context.Context, store *outbox.Store) ([]redriveRow, error) {
	rows, err := store.Query(ctx, store.DB(), `SELECT Id, MessageId, MessageKey, Generation, Batch, Approver, Reason, RequestedAtUtc,
		OriginalAttemptCount, COALESCE(OriginalMaxAttempts, 0), COALESCE(OriginalLastError, ''), COALESCE(OriginalDeadLetteredAtUtc, ''),
		Outcome, COALESCE(VerifiedTransactionId, ''), COALESCE(ClosedAtUtc, '') FROM Redrives ORDER BY Id`)
	if err != nil {
		return nil, fmt.Errorf("read redrives: %w", err)
	}
	defer rows.Close()
	var out []redriveRow
	for rows.Next() {
		var r redriveRow
		if err := rows.Scan(&r.id, &r.messageID, &r.key, &r.generation, &r.batch, &r.approver, &r.reason, &r.requestedAt,
			&r.origAttempts, &r.origMax, &r.origLastError, &r.origDeadAt, &r.outcome, &r.verifiedTx, &r.close); err != nil {
			return nil, fmt.Errorf("read redrives: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}
