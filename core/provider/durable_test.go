package provider

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"outboxlab/core/clock"
	"outboxlab/core/dialect"
)

func openDurable(t *testing.T, db dialect.Database) *Durable {
	t.Helper()
	d, err := OpenDurable(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// The redelivery a crash causes: the same key charged again, from another
// handle on the ledger (another process, in the crash loop).
func TestDurableDeduplicatesAcrossHandles(t *testing.T) {
	onEachBackend(t, func(t *testing.T, on backend) {
		ctx := context.Background()
		path := on.Database(t, "provider")
		first := openDurable(t, path)
		r1, err := first.Charge(ctx, "MSG-001", "w1", clock.Start)
		if err != nil || r1.Duplicate || r1.TransactionID != "PRV-TX-000001" {
			t.Fatalf("first charge = %+v, %v; want PRV-TX-000001, not a duplicate", r1, err)
		}
		first.Close()

		second := openDurable(t, path)
		r2, err := second.Charge(ctx, "MSG-001", "w2", clock.Start)
		if err != nil || !r2.Duplicate || r2.TransactionID != r1.TransactionID {
			t.Fatalf("redelivered charge = %+v, %v; want a duplicate answered with %s", r2, err, r1.TransactionID)
		}
		r3, err := second.Charge(ctx, "MSG-002", "w2", clock.Start)
		if err != nil || r3.Duplicate || r3.TransactionID != "PRV-TX-000003" {
			t.Fatalf("other key = %+v, %v; want PRV-TX-000003 (delivery 3), not a duplicate", r3, err)
		}
		got, err := second.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want := DurableStats{Deliveries: 3, DuplicateDeliveries: 1, Effects: 2, KeysCharged: 2}
		if got != want {
			t.Errorf("stats = %+v, want %+v", got, want)
		}
	})
}

// Without deduplication the same redelivery charges twice, and the ledger's
// count says so: the crash loop's "zero duplicate effects" can fail.
func TestDurableWithoutDeduplicationChargesTwice(t *testing.T) {
	onEachBackend(t, func(t *testing.T, on backend) {
		ctx := context.Background()
		d := openDurable(t, on.Database(t, "provider"))
		d.Deduplicate = false
		for _, caller := range []string{"w1", "w2", "w3"} {
			if r, err := d.Charge(ctx, "MSG-001", caller, clock.Start); err != nil || r.Duplicate {
				t.Fatalf("charge by %s = %+v, %v; want a fresh effect", caller, r, err)
			}
		}
		got, err := d.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got.Effects != 3 || got.KeysCharged != 1 || got.DuplicateEffects != 2 || got.DuplicateDeliveries != 0 {
			t.Errorf("stats = %+v, want 3 effects on 1 key: 2 duplicate effects, 0 deduplicated deliveries", got)
		}
		effects, err := d.Effects(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if ids := strings.Join(effects["MSG-001"], ","); ids != "PRV-TX-000001,PRV-TX-000002,PRV-TX-000003" {
			t.Errorf("MSG-001 effects = %s, want three transaction ids", ids)
		}
	})
}

func TestDurableFailureIsRecordedWithoutEffect(t *testing.T) {
	onEachBackend(t, func(t *testing.T, on backend) {
		ctx := context.Background()
		d := openDurable(t, on.Database(t, "provider"))
		d.Fails = func(key string) bool { return key == "MSG-050" }
		for i := 0; i < 2; i++ {
			if _, err := d.Charge(ctx, "MSG-050", "w1", clock.Start); !errors.Is(err, ErrUnavailable) {
				t.Fatalf("charge of a failing key: err = %v, want ErrUnavailable", err)
			}
		}
		if _, err := d.Charge(ctx, "MSG-051", "w1", clock.Start); err != nil {
			t.Fatal(err)
		}
		got, err := d.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want := DurableStats{Deliveries: 3, FailedDeliveries: 2, Effects: 1, KeysCharged: 1}
		if got != want {
			t.Errorf("stats = %+v, want %+v", got, want)
		}
	})
}

// Charges of one key from several handles at once (workers redelivering
// after a crash) make one effect: the ledger's read-then-charge is one
// step on PostgreSQL's READ COMMITTED too, not only under SQLite's writer lock.
func TestDurableConcurrentRedeliveriesChargeOnce(t *testing.T) {
	const handles, keys = 6, 20
	onEachBackend(t, func(t *testing.T, on backend) {
		ctx := context.Background()
		path := on.Database(t, "provider")
		openDurable(t, path) // the schema, once
		ds := make([]*Durable, handles)
		for h := range ds {
			ds[h] = openDurable(t, path)
		}
		var wg sync.WaitGroup
		errs := make([]error, handles*keys)
		for k := range keys {
			gate := make(chan struct{}) // every handle charges key k at once
			for h, d := range ds {
				wg.Go(func() {
					<-gate
					_, errs[k*handles+h] = d.Charge(ctx, fmt.Sprintf("MSG-%03d", k), fmt.Sprintf("w%d", h), clock.Start)
				})
			}
			close(gate)
			wg.Wait()
		}
		if err := errors.Join(errs...); err != nil {
			t.Fatal(err)
		}
		got, err := openDurable(t, path).Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want := DurableStats{Deliveries: handles * keys, DuplicateDeliveries: (handles - 1) * keys, Effects: keys, KeysCharged: keys}
		if got != want {
			t.Errorf("stats = %+v, want %+v", got, want)
		}
	})
}
