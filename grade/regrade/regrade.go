// Package regrade grades many workers at once, up to a number in parallel,
// and grades again, alone, each one a wall-clock budget stopped: on a
// loaded machine a worker may miss a budget it would meet on its own, and a
// student is never failed for the machine's load.
package regrade

import (
	"context"
	"sync"
)

// A Grade is one worker's grading: its result, and whether a wall-clock
// budget stopped the worker.
type Grade[R any] struct {
	Result     R
	OverBudget bool
	// Alone is true when the result is from the second grading, alone.
	Alone bool
}

// Each grades jobs 0..n-1 with grade, at most parallel at once (at least
// one). A job whose grading was stopped by a wall-clock budget while others
// ran beside it is graded once more, alone, after the rest: that second
// result stands, budget stop or not. Each returns when every job is done
// or ctx is done (the jobs left are graded with ctx done: grade says so).
func Each[R any](ctx context.Context, n, parallel int, grade func(ctx context.Context, i int) Grade[R]) []Grade[R] {
	out := make([]Grade[R], n)
	parallel = max(1, min(parallel, n))
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range parallel {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				out[i] = grade(ctx, i)
			}
		}()
	}
	for i := range n {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	if parallel == 1 {
		return out // each was alone already
	}
	for i := range out {
		if out[i].OverBudget && ctx.Err() == nil {
			out[i] = grade(ctx, i)
			out[i].Alone = true
		}
	}
	return out
}
