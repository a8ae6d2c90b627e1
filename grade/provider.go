package grade

import (
	"fmt"
	"net/http"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/provider"
)

// The provider calls a worker makes through the lab: the Day's fault may
// take one (a kill, a stall); the rest are answered by the scripted provider
// and recorded for the checks.

// provider serves a status check or a charge, unless the Day's fault takes
// the call (a kill, a stall): stop is then true, or the answer is held.
func (r *run) provider(s *slot, c *call) (a answer, stop bool, err error) {
	id, key := *c.req.MessageID, c.req.PaymentKey
	r.perMsg[id]++
	if r.perMsg[id] > maxProviderPerMsg {
		r.violate(ruleLimits, "more than %d provider calls for message %d", maxProviderPerMsg, id)
		r.ended = "the provider-call limit"
		return a, true, nil
	}
	if owner, ok := r.owns(s, id, key); !ok {
		r.violate(ruleOwned, "%s asked about message %d (%s) while %s", s.id, id, key, owner)
	}
	now := r.clk.Now()
	if c.name == "charge" {
		ans, err := r.prov.Charge(r.ctx, key, *c.req.AmountCents, now)
		r.log(s.id, "provider charge %s %d → %s", key, *c.req.AmountCents, chargeText(ans, err))
		if err != nil {
			return answer{status: http.StatusServiceUnavailable, body: map[string]any{"error": err.Error()}}, false, nil
		}
		return answer{status: http.StatusOK, body: map[string]any{"outcome": string(ans.Outcome), "transaction_id": ans.TransactionID}}, false, nil
	}
	if r.day.fault != nil {
		act := r.day.fault(r, s, key, id)
		if act.kill && act.answered {
			a = statusAnswer(r.prov.CheckStatus(r.ctx, key, now))
			r.log(s.id, "provider status %s (message %d) → %s, never delivered", key, id, answerText(a))
			return a, true, r.kill(s, act.why)
		}
		if act.kill {
			r.log(s.id, "provider status %s (message %d) → the handler crashes", key, id)
			return a, true, r.kill(s, act.why)
		}
		if act.stall > 0 {
			a = statusAnswer(r.prov.CheckStatus(r.ctx, key, now))
			r.log(s.id, "provider status %s (message %d) → %s, held for %s", key, id, answerText(a), clock.Millis(act.stall))
			s.held, s.wake, s.state = &a, now.Add(act.stall), blocked
			r.stalled = s
			return a, true, nil
		}
	}
	a = statusAnswer(r.prov.CheckStatus(r.ctx, key, now))
	r.log(s.id, "provider status %s (message %d) → %s", key, id, answerText(a))
	if r.statusBy == nil {
		r.statusBy = map[string][]statusCall{}
	}
	tx, _ := a.body["transaction_id"].(string)
	out, _ := a.body["outcome"].(string)
	r.statusBy[key] = append(r.statusBy[key], statusCall{worker: s.id, at: now, outcome: out, tx: tx, seq: r.lastSeq})
	return a, false, nil
}

// statusCall is a status check a worker made, as the lab answered it.
type statusCall struct {
	worker      string
	at          time.Time
	outcome, tx string
	seq         int64 // the change log's last row when it was asked
}

func statusAnswer(ans provider.Answer, err error) answer {
	if err != nil {
		return answer{status: http.StatusServiceUnavailable, body: map[string]any{"error": err.Error()}}
	}
	body := map[string]any{"outcome": string(ans.Outcome)}
	if ans.TransactionID != "" {
		body["transaction_id"] = ans.TransactionID
	}
	return answer{status: http.StatusOK, body: body}
}

func answerText(a answer) string {
	if a.status != http.StatusOK {
		return "503 unavailable"
	}
	if id, ok := a.body["transaction_id"].(string); ok {
		return fmt.Sprintf("%v %s", a.body["outcome"], id)
	}
	return fmt.Sprint(a.body["outcome"])
}

func chargeText(a provider.Answer, err error) string {
	if err != nil {
		return "failed"
	}
	return string(a.Outcome) + " " + a.TransactionID
}
