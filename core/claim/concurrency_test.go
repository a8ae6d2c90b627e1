package claim

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"outboxlab/core/clock"
)

// Several workers, each with a store of its own holding one connection,
// drain one queue at once (half through ClaimTx, half through the prepared
// batch): no row is ever held by two workers, every row is claimed exactly
// once, and no owner-checked settle is refused. On PostgreSQL the claims
// really run side by side (FOR UPDATE SKIP LOCKED); on SQLite BEGIN
// IMMEDIATE runs them one at a time. Run it with -race.
func TestConcurrentClaimersNeverShareARow(t *testing.T) {
	const rows, workers = 300, 8
	onEachDialect(t, func(t *testing.T, be backend) {
		ctx := context.Background()
		open := openBare(t, be, rows)
		var (
			mu      sync.Mutex
			holder  = map[int64]string{}
			claims  = map[int64]int{}
			byOwner = map[string]int{}
			errs    []string
		)
		fail := func(format string, args ...any) {
			mu.Lock()
			errs = append(errs, fmt.Sprintf(format, args...))
			mu.Unlock()
		}
		stores := make([]*Store, workers)
		for i := range stores {
			stores[i] = open()
			stores[i].DB().SetMaxOpenConns(1)
		}
		var wg sync.WaitGroup
		for i, s := range stores {
			name := fmt.Sprintf("w%d", i)
			var batch *Batch
			if i%2 == 1 {
				var err error
				if batch, err = s.PrepareBatch(ctx, jobs, "Id, LockedBy, ClaimToken", "Status"); err != nil {
					t.Fatal(err)
				}
				defer batch.Close()
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := Request{Owner: name, Now: clock.Start, Lease: time.Hour, Limit: 1 + i%3}
				for {
					var got []Owner
					scan := func(sc Scanner) error {
						var o Owner
						got = append(got, o)
						return sc.Scan(&got[len(got)-1].ID, &got[len(got)-1].Owner, &got[len(got)-1].Token)
					}
					err := s.InTx(ctx, func(tx *sql.Tx) error {
						got = got[:0]
						if batch != nil {
							return batch.ClaimTx(ctx, tx, r, scan)
						}
						return s.ClaimTx(ctx, tx, jobs, r, "Id, LockedBy, ClaimToken", scan)
					})
					if err != nil {
						fail("%s: claim: %v", name, err)
						return
					}
					if len(got) == 0 {
						return // every row left is settled or locked by a claim that will take it
					}
					mu.Lock()
					for _, o := range got {
						if h := holder[o.ID]; h != "" {
							errs = append(errs, fmt.Sprintf("row %d claimed by %s while %s holds it", o.ID, name, h))
						}
						holder[o.ID] = name
						claims[o.ID]++
						byOwner[name]++
					}
					mu.Unlock()
					for _, o := range got {
						var ok bool
						err := s.InTx(ctx, func(tx *sql.Tx) (err error) {
							if batch != nil {
								ok, err = batch.SettleTx(ctx, tx, o, "Done")
							} else {
								ok, err = s.SettleTx(ctx, tx, jobs, o, []Set{{"Status", "Done"}})
							}
							return err
						})
						if err != nil || !ok {
							fail("%s: settle row %d = %v, %v", name, o.ID, ok, err)
						}
						mu.Lock()
						delete(holder, o.ID)
						mu.Unlock()
					}
				}
			}()
		}
		wg.Wait()
		if len(errs) > 0 {
			t.Fatalf("%d violations, the first: %s", len(errs), strings.Join(errs[:min(len(errs), 5)], "; "))
		}
		for id := int64(1); id <= rows; id++ {
			if claims[id] != 1 {
				t.Errorf("row %d claimed %d times, want 1", id, claims[id])
			}
		}
		var done int
		err := stores[0].DB().QueryRow(`SELECT count(*) FROM Jobs WHERE Status = 'Done' AND ClaimToken = 1 AND LockedBy IS NULL`).Scan(&done)
		if err != nil || done != rows {
			t.Errorf("settled rows with token 1 = %d, %v; want %d", done, err, rows)
		}
		for _, s := range stores {
			if s.Refused() != 0 {
				t.Errorf("a store refused %d settles, want 0", s.Refused())
			}
		}
		t.Logf("claims per worker: %v", byOwner)
	})
}
