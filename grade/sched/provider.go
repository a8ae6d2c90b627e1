package sched

import (
	"database/sql"
	"fmt"
	"net/http"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/provider"
	"outboxlab/grade/changelog"
	"outboxlab/grade/labserver"
)

// The provider calls a worker makes through the lab: the Day's fault may
// take one (a kill, a stall); the rest are answered by the scripted provider
// and recorded for the checks.

// provider serves a status check or a charge, unless the Day's fault takes
// the call (a kill, a stall): stop is then true, or the answer is held.
func (r *Run) provider(w *Worker, c *labserver.Call) (a labserver.Answer, stop bool, err error) {
	id, key := *c.Req.MessageID, c.Req.PaymentKey
	r.perMsg[id]++
	if r.perMsg[id] > maxProviderPerMsg {
		r.Violate(RuleLimits, "more than %d provider calls for message %d", maxProviderPerMsg, id)
		r.Ended = "the provider-call limit"
		return a, true, nil
	}
	if owner, ok := r.owns(w, id, key); !ok {
		r.Violate(RuleOwned, "%s asked about message %d (%s) while %s", w.ID, id, key, owner)
	}
	now := r.cfg.Clock.Now()
	prov := r.cfg.Provider
	if c.Name == "charge" {
		ans, err := prov.Charge(r.ctx, key, *c.Req.AmountCents, now)
		r.Log(w.ID, "provider charge %s %d → %s", key, *c.Req.AmountCents, chargeText(ans, err))
		if err != nil {
			return labserver.Answer{Status: http.StatusServiceUnavailable, Body: map[string]any{"error": err.Error()}}, false, nil
		}
		return labserver.Answer{Status: http.StatusOK,
			Body: map[string]any{"outcome": string(ans.Outcome), "transaction_id": ans.TransactionID}}, false, nil
	}
	if r.cfg.Fault != nil {
		if f := r.cfg.Fault(key, r.perMsg[id], r.Fired); f.takes() {
			return r.fault(w, f, id, key)
		}
	}
	a = statusAnswer(prov.CheckStatus(r.ctx, key, now))
	r.Log(w.ID, "provider status %s (message %d) → %s", key, id, answerText(a))
	r.noteStatus(w, key, now, a)
	return a, false, nil
}

// fault applies a Day's fault to w's status check for key: a kill (after
// the provider answered, when the call was in flight) or a stall.
func (r *Run) fault(w *Worker, f Fault, id int64, key string) (a labserver.Answer, stop bool, err error) {
	if f.Name != "" {
		r.Fired[f.Name] = true
	}
	now := r.cfg.Clock.Now()
	if f.Kill && f.RestartAtLease {
		if end, ok := r.timeOf(`SELECT LockedUntilUtc FROM OutboxMessages WHERE Id = $1`, id); ok {
			w.helloAt = end.Add(-f.Early)
		}
	}
	switch {
	case f.Kill && f.Answered:
		a = statusAnswer(r.cfg.Provider.CheckStatus(r.ctx, key, now))
		r.Log(w.ID, "provider status %s (message %d) → %s, never delivered", key, id, answerText(a))
		return a, true, r.kill(w, f.Why)
	case f.Kill:
		r.Log(w.ID, "provider status %s (message %d) → the handler crashes", key, id)
		return a, true, r.kill(w, f.Why)
	}
	a = statusAnswer(r.cfg.Provider.CheckStatus(r.ctx, key, now))
	if f.Stall > 0 {
		r.Log(w.ID, "provider status %s (message %d) → %s, held for %s", key, id, answerText(a), clock.Millis(f.Stall))
		w.held, w.wake, w.state, w.late = &a, now.Add(f.Stall), blocked, true
		r.Stalled = w.ID
		return a, true, nil
	}
	delay := f.Delay
	if f.Boundary > 0 {
		if b, ok := r.nextGate(id, now, f.Boundary); ok {
			delay = b.Sub(now)
		}
	}
	if delay <= 0 {
		r.Log(w.ID, "provider status %s (message %d) → %s", key, id, answerText(a))
		r.noteStatus(w, key, now, a)
		return a, false, nil
	}
	r.Log(w.ID, "provider status %s (message %d) → %s, answered %s later", key, id, answerText(a), clock.Millis(delay))
	r.noteStatus(w, key, now, a)
	w.held, w.wake, w.state = &a, now.Add(delay), blocked
	return a, true, nil
}

// noteStatus records a status answer w got (or will get, when it is held).
func (r *Run) noteStatus(w *Worker, key string, at time.Time, a labserver.Answer) {
	if r.StatusBy == nil {
		r.StatusBy = map[string][]StatusCall{}
	}
	tx, _ := a.Body["transaction_id"].(string)
	out, _ := a.Body["outcome"].(string)
	var id int64
	if w.call != nil && w.call.Req.MessageID != nil {
		id = *w.call.Req.MessageID
	}
	r.StatusBy[key] = append(r.StatusBy[key], StatusCall{Worker: w.ID, Inc: w.inc.N, MessageID: id,
		At: at, Outcome: out, Tx: tx, Seq: r.lastSeq})
}

// nextGate is the earliest backoff gate of a Pending message other than
// id, after now and at most within of it.
func (r *Run) nextGate(id int64, now time.Time, within time.Duration) (time.Time, bool) {
	return r.timeOf(`SELECT MIN(NextAttemptUtc) FROM OutboxMessages
		WHERE Id <> $1 AND Status = 'Pending' AND NextAttemptUtc > $2 AND NextAttemptUtc <= $3`,
		id, clock.ISO(now), clock.ISO(now.Add(within)))
}

// timeOf reads one time from the run's database (false: none).
func (r *Run) timeOf(query string, args ...any) (time.Time, bool) {
	var at sql.NullString
	if err := r.cfg.DB.QueryRowContext(r.ctx, query, args...).Scan(&at); err != nil || !at.Valid {
		return time.Time{}, false
	}
	return changelog.ParseISO(at.String)
}

func statusAnswer(ans provider.Answer, err error) labserver.Answer {
	if err != nil {
		return labserver.Answer{Status: http.StatusServiceUnavailable, Body: map[string]any{"error": err.Error()}}
	}
	body := map[string]any{"outcome": string(ans.Outcome)}
	if ans.TransactionID != "" {
		body["transaction_id"] = ans.TransactionID
	}
	return labserver.Answer{Status: http.StatusOK, Body: body}
}

func answerText(a labserver.Answer) string {
	if a.Status != http.StatusOK {
		return "503 unavailable"
	}
	if id, ok := a.Body["transaction_id"].(string); ok {
		return fmt.Sprintf("%v %s", a.Body["outcome"], id)
	}
	return fmt.Sprint(a.Body["outcome"])
}

func chargeText(a provider.Answer, err error) string {
	if err != nil {
		return "failed"
	}
	return string(a.Outcome) + " " + a.TransactionID
}
