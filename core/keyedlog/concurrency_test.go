package keyedlog

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"testing"
	"time"

	"outboxlab/core/clock"
)

// seenBy applies a record by inserting it into Seen through its consumer's store.
type seenBy struct{ s *Store }

func (h seenBy) Apply(ctx context.Context, tx *sql.Tx, r Record, _ time.Time) (string, error) {
	_, err := h.s.ExecTx(ctx, tx, `INSERT INTO Seen (MessageId) VALUES (?)`, r.MessageID)
	return "seen", err
}

// Four consumers, each on its own connections, drain one log at once. A
// consumer with nothing due moves the shared clock past the leases of the
// others, so claims are taken over while their owners work: every record
// must still be applied exactly once, each partition in offset order, and
// each partition must end past its last record.
func TestConcurrentConsumersApplyEachRecordOnceInOrder(t *testing.T) {
	const partitions, perPartition, consumers = 4, 25, 4
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			location := b.location(t)
			s, err := Open(ctx, location, seenSchema)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if err := s.CreatePartitions(ctx, partitions); err != nil {
				t.Fatal(err)
			}
			clk := clock.New()
			for i := range partitions * perPartition {
				p := i % partitions
				_, err := s.Append(ctx, NewRecord{Partition: p, MessageID: fmt.Sprintf("p%d/%02d", p, i/partitions),
					Key: fmt.Sprintf("k%d", i%(2*partitions)), CorrelationID: "c", Type: "T", Sequence: 1}, clk.Now())
				if err != nil {
					t.Fatal(err)
				}
			}
			var wg sync.WaitGroup
			errs := make([]error, consumers)
			refused := make([]int64, consumers)
			for n := range consumers {
				cs, err := Open(ctx, location, seenSchema)
				if err != nil {
					t.Fatal(err)
				}
				defer cs.Close()
				c := &Consumer{Store: cs, Clock: clk, Handler: seenBy{cs}, Name: fmt.Sprintf("consumer-%d", n),
					Lease: time.Second, Idempotent: true}
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, errs[n] = c.Drain(ctx, 10*partitions*perPartition)
					refused[n] = cs.Refused()
				}()
			}
			wg.Wait()
			for n, err := range errs {
				if err != nil {
					t.Fatalf("consumer-%d: %v", n, err)
				}
			}
			var total, distinct int
			if err := s.DB().QueryRowContext(ctx, `SELECT COUNT(*), COUNT(DISTINCT MessageId) FROM Seen`).Scan(&total, &distinct); err != nil {
				t.Fatal(err)
			}
			if want := partitions * perPartition; total != want || distinct != want {
				t.Errorf("Seen holds %d rows, %d distinct; want each of the %d records once", total, distinct, want)
			}
			order := map[string][]string{}
			for _, id := range splitIDs(seen(t, s)) {
				order[id[:2]] = append(order[id[:2]], id)
			}
			for p := range partitions {
				got := order[fmt.Sprintf("p%d", p)]
				for i, id := range got {
					if want := fmt.Sprintf("p%d/%02d", p, i); id != want {
						t.Errorf("partition %d applied %v; record %d is %s, want %s (offset order)", p, got, i, id, want)
						break
					}
				}
			}
			parts, err := s.Partitions(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range parts {
				if p.NextOffset != perPartition || p.Owner != "" {
					t.Errorf("partition %d ends at offset %d held by %q, want %d and no owner", p.Partition, p.NextOffset, p.Owner, perPartition)
				}
			}
			t.Logf("%s: refused transitions per consumer %v", b.name, refused)
		})
	}
}

func splitIDs(s string) []string {
	var out []string
	for start, i := 0, 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ' ' {
			if i > start {
				out = append(out, s[start:i])
			}
			start = i + 1
		}
	}
	return out
}
