package main

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
	"time"

	"outboxlab/core/pgdb"
	"outboxlab/core/report"
)

// waitProfile is where a drain's server sessions spent their time: the
// share of samples of pg_stat_activity, taken every waitSampleEvery while
// the workers drained, in each of waitKinds.
type waitProfile struct {
	workers int
	rate    float64 // the sampled drain's messages/s (the sampler costs it some)
	share   map[string]float64
	samples int
}

const waitSampleEvery = 2 * time.Millisecond

// The kinds of time a worker's session spends, from its state and wait event.
const (
	waitRunning     = "running a statement"
	waitWAL         = "waiting for the WAL (write, flush)"
	waitClientInTx  = "waiting for the worker inside a transaction"
	waitClientIdle  = "waiting for the worker between transactions"
	waitLock        = "waiting for a lock"
	waitOther       = "other waits"
	waitSampleCount = 6
)

var waitKinds = [waitSampleCount]string{waitRunning, waitWAL, waitClientInTx, waitClientIdle, waitLock, waitOther}

// waitKind classifies one sample of a session.
func waitKind(state, eventType, event string) string {
	switch {
	case eventType == "IO" && strings.HasPrefix(event, "WAL"), eventType == "LWLock" && strings.HasPrefix(event, "WAL"):
		return waitWAL
	case eventType == "Lock", eventType == "LWLock":
		return waitLock
	case state == "idle in transaction", state == "idle in transaction (aborted)":
		return waitClientInTx
	case state == "idle":
		return waitClientIdle
	case eventType == "" && state == "active":
		return waitRunning
	case eventType == "Client" && event == "ClientRead":
		return waitClientInTx // active but reading the next message of the statement
	}
	return waitOther
}

// sampleWaits samples the sessions pids on the server at url until stop is
// called, which returns the profile.
func sampleWaits(ctx context.Context, url string, pids []int) (stop func() (map[string]float64, int, error)) {
	done := make(chan struct{})
	counts := map[string]int{}
	var err error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var db *sql.DB
		if db, err = pgdb.Open(ctx, url); err != nil {
			return
		}
		defer db.Close()
		list := make([]string, len(pids))
		for i, p := range pids {
			list[i] = fmt.Sprint(p)
		}
		q := `SELECT coalesce(state, ''), coalesce(wait_event_type, ''), coalesce(wait_event, '')
		    FROM pg_stat_activity WHERE pid IN (` + strings.Join(list, ", ") + `)`
		tick := time.NewTicker(waitSampleEvery)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			if err = sampleOnce(ctx, db, q, counts); err != nil {
				return
			}
		}
	}()
	return func() (map[string]float64, int, error) {
		close(done)
		wg.Wait()
		total := 0
		for _, c := range counts {
			total += c
		}
		share := map[string]float64{}
		for k, c := range counts {
			share[k] = float64(c) / float64(max(total, 1))
		}
		return share, total, err
	}
}

func sampleOnce(ctx context.Context, db *sql.DB, q string, counts map[string]int) error {
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var state, eventType, event string
		if err := rows.Scan(&state, &eventType, &event); err != nil {
			return err
		}
		counts[waitKind(state, eventType, event)]++
	}
	return rows.Err()
}

// pgWaits drains n messages with Step, claim 1, with workers workers once
// more, outside the timed rounds, sampling where their sessions spend time.
func pgWaits(ctx context.Context, url string, n, workers int) (waitProfile, error) {
	p := waitProfile{workers: workers}
	var stop func() (map[string]float64, int, error)
	r, err := pgLabDrainObserved(ctx, url, n, workers, true, 1, func(pids []int) { stop = sampleWaits(ctx, url, pids) })
	if stop == nil {
		return p, err
	}
	share, samples, serr := stop()
	if err == nil {
		err = serr
	}
	p.rate, p.share, p.samples = r.rate(), share, samples
	return p, err
}

func printWaits(profiles []waitProfile, n int) {
	if len(profiles) == 0 {
		return
	}
	header := []string{"Where the sessions' time went"}
	for _, p := range profiles {
		header = append(header, fmt.Sprintf("%s (%.0f msg/s)", report.Plural(p.workers, "worker"), p.rate))
	}
	var rows [][]string
	for _, k := range waitKinds {
		row := []string{k}
		for _, p := range profiles {
			row = append(row, fmt.Sprintf("%.0f%%", 100*p.share[k]))
		}
		rows = append(rows, row)
	}
	fmt.Printf("PostgreSQL, Step claim 1: the worker sessions sampled every %s in pg_stat_activity, one more drain of %d\n", waitSampleEvery, n)
	fmt.Print(report.RenderTable(header, rows))
	fmt.Println()
}
