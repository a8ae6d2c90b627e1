package retry

import (
	"time"

	"outboxlab/core/backoff"
	"outboxlab/core/outbox"
)

// The metrics the visibility pair is judged by are read from what the run
// left, never from the consumers' own bookkeeping: the deliveries from the
// audit log (written in each claim's transaction), the sends from the
// gateway's ledger, the dead letters from the audit log and the rows, and
// the refusals from the database's answers to the owner-checked updates.

// heldMessage is one consumer holding one message: from a delivery in the
// audit log to the answer of its last send before that consumer's next
// delivery, as the gateway's ledger shows it.
type heldMessage struct {
	consumer, key string
	from, to      time.Time
	leaseEnd      time.Time // from + the visibility timeout
	sends         []send
}

// holdsFromTruth pairs every delivery in the audit log with the sends its
// consumer made of that message until its next delivery. Sends of a message
// the consumer's latest delivery was not of are returned apart: a consumer
// that sends them has put down one message to work on another.
func (o *visibilityOptions) holdsFromTruth(audit []outbox.AuditEntry, msgs []outbox.Message, ledger []send) (holds []heldMessage, orphans int) {
	keys := map[int64]string{}
	for _, m := range msgs {
		keys[m.ID] = m.Key
	}
	current := map[string]int{} // consumer → index of its latest hold
	deliveries := deliveriesOf(audit, keys)
	next := 0
	for _, s := range ledger { // both in time order; a delivery at s.at comes before the send it starts
		for next < len(deliveries) && !deliveries[next].from.After(s.at) {
			d := deliveries[next]
			d.leaseEnd = d.from.Add(o.Visibility)
			current[d.consumer] = len(holds)
			holds = append(holds, d)
			next++
		}
		i, ok := current[s.consumer]
		if !ok || holds[i].key != s.key {
			orphans++
			continue
		}
		holds[i].sends = append(holds[i].sends, s)
		holds[i].to = s.done
	}
	for ; next < len(deliveries); next++ {
		holds = append(holds, deliveries[next])
	}
	for i := range holds {
		if holds[i].to.IsZero() {
			holds[i].to = holds[i].from
		}
	}
	return holds, orphans
}

// deliveriesOf reads the deliveries from the audit log, in order.
func deliveriesOf(audit []outbox.AuditEntry, keys map[int64]string) []heldMessage {
	var out []heldMessage
	for _, a := range audit {
		if a.Action == actionDelivered {
			out = append(out, heldMessage{consumer: a.Actor, key: keys[a.MessageID], from: mustParseISO(a.At)})
		}
	}
	return out
}

// holdMetrics are what the holds show.
type holdMetrics struct {
	overlaps   int           // pairs of holds of one message by two consumers that overlap in time
	concurrent int           // sends made while another consumer held the same message
	superseded int           // holds during which another consumer took the message
	multiSend  int           // holds with more than one send: a backoff waited out holding the message
	heldSleep  time.Duration // time between sends within a hold: asleep holding
	outlived   int           // sends within a hold made after its lease had ended
	putBacks   int           // failed sends after which the message went back on the queue
	otherWork  int           // sends made while a message the same consumer put back waited out its backoff
	longest    time.Duration // the longest hold
}

func (o *visibilityOptions) holdMetrics(holds []heldMessage, audit []outbox.AuditEntry, keys map[int64]string) holdMetrics {
	var f holdMetrics
	deadAt := map[string]time.Time{} // key → when it was dead-lettered, from the audit log
	for _, a := range audit {
		if a.Action == actionDeadLettered {
			deadAt[keys[a.MessageID]] = mustParseISO(a.At)
		}
	}
	byKey := map[string][]int{} // key → its holds, in delivery order
	for i, h := range holds {
		byKey[h.key] = append(byKey[h.key], i)
	}
	type putBack struct{ from, due time.Time }
	waiting := map[string][]putBack{} // consumer → the messages it put back
	for i, h := range holds {
		f.longest = max(f.longest, h.to.Sub(h.from))
		if len(h.sends) > 1 {
			f.multiSend++
		}
		for j := 1; j < len(h.sends); j++ {
			f.heldSleep += h.sends[j].at.Sub(h.sends[j-1].done)
			if h.sends[j].at.After(h.leaseEnd) {
				f.outlived++
			}
		}
		taken := false
		for _, j := range byKey[h.key] {
			g := holds[j]
			if g.consumer == h.consumer {
				continue
			}
			if i < j && h.from.Before(g.to) && g.from.Before(h.to) {
				f.overlaps++
			}
			taken = taken || g.from.After(h.from) && g.from.Before(h.to)
		}
		if taken {
			f.superseded++
		}
		last := len(h.sends) - 1
		if last >= 0 && !h.sends[last].ok && !taken && !deadAt[h.key].Equal(h.to) {
			f.putBacks++
			delay := courseDelay(o.BaseBackoff, o.MaxBackoff, h.sends[last].attempt)
			waiting[h.consumer] = append(waiting[h.consumer], putBack{h.to, h.to.Add(delay)})
		}
	}
	for _, h := range holds {
		for _, s := range h.sends {
			for _, j := range byKey[h.key] {
				if g := holds[j]; g.consumer != h.consumer && !g.from.After(s.at) && s.at.Before(g.to) {
					f.concurrent++
					break
				}
			}
			for _, w := range waiting[s.consumer] {
				if !s.at.Before(w.from) && s.at.Before(w.due) {
					f.otherWork++
					break
				}
			}
		}
	}
	return f
}

// courseDelay is the course's backoff after failed attempt n: base × 2^(n-1),
// never more than the cap, without overflow.
func courseDelay(base, ceiling time.Duration, n int) time.Duration {
	d := base
	for i := 1; i < n && d < ceiling; i++ {
		d *= 2
	}
	return min(d, ceiling)
}

// exitOf is which budget dead-lettered m, as the consumer recorded it in
// the audit log (exitsOf) in the dead letter's transaction.
func (run *pairRun) exitOf(m outbox.Message) backoff.Exit {
	if m.Status != outbox.DeadLettered {
		return backoff.NoExit
	}
	return run.exits[m.ID]
}
