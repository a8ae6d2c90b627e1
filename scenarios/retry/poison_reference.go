package retry

import (
	"fmt"
	"slices"
)

// seedTable is one row of the course's table: what one counter position did.
type seedTable struct {
	restarts, delivered, deaths, processed, dead, remaining int
}

func (t seedTable) String() string {
	return fmt.Sprint(t.restarts, " ", t.delivered, " ", t.deaths, " ", t.processed, " ", t.dead, " ", t.remaining)
}

// seedPoisonCounter is the course's poison-counter.mjs, line for line: a queue
// in memory, a loop of lifetimes, a delivery loop that breaks on the lethal
// message. It shares nothing with the real run (no database, no process), so
// the metrics read back from the real run's databases can be held to it.
func seedPoisonCounter(messages int, lethal []int, threshold, maxRestarts int, atDelivery bool) seedTable {
	type msg struct {
		id, attempt int
		status      string
	}
	queue := make([]*msg, messages)
	for i := range queue {
		queue[i] = &msg{id: i + 1, status: "pending"}
	}
	var t seedTable
	for b := 1; b <= maxRestarts; b++ {
		t.restarts = b
		var pending []*msg
		for _, m := range queue {
			if m.status == "pending" {
				pending = append(pending, m)
			}
		}
		for _, m := range pending {
			t.delivered++
			if atDelivery {
				m.attempt++
				if m.attempt >= threshold {
					m.status = "dead"
					t.dead++
					continue
				}
			}
			if slices.Contains(lethal, m.id) {
				t.deaths++
				break
			}
			m.status = "processed"
		}
		if !slices.ContainsFunc(queue, func(m *msg) bool { return m.status == "pending" }) {
			break
		}
	}
	for _, m := range queue {
		switch m.status {
		case "processed":
			t.processed++
		case "pending":
			t.remaining++
		}
	}
	return t
}
