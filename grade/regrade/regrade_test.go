package regrade

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
)

// TestEach: every job graded once, never more than parallel at a time; a
// job a budget stopped is graded again, alone (nothing else running), and
// only once even when stopped again; with one at a time nothing is regraded.
func TestEach(t *testing.T) {
	var (
		mu      sync.Mutex
		calls   = map[int]int{}
		running atomic.Int32
		most    atomic.Int32
		aloneOK = true
	)
	stopped := map[int]bool{2: true, 5: true}
	grade := func(ctx context.Context, i int) Grade[int] {
		n := running.Add(1)
		defer running.Add(-1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		mu.Lock()
		calls[i]++
		again := calls[i] > 1
		if again && n != 1 {
			aloneOK = false
		}
		mu.Unlock()
		// Job 5 is stopped every time; job 2 only beside others.
		return Grade[int]{Result: i * 10, OverBudget: stopped[i] && (i == 5 || !again)}
	}
	got := Each(context.Background(), 8, 3, grade)
	if most.Load() > 3 {
		t.Errorf("%d ran at once, want at most 3", most.Load())
	}
	for i, g := range got {
		want := 1
		if stopped[i] {
			want = 2
		}
		if calls[i] != want || g.Result != i*10 || g.Alone != stopped[i] {
			t.Errorf("job %d: graded %d times, result %d, alone %v; want %d, %d, %v", i, calls[i], g.Result, g.Alone, want, i*10, stopped[i])
		}
	}
	if !aloneOK {
		t.Error("a second grading ran beside another")
	}
	if got[2].OverBudget || !got[5].OverBudget {
		t.Errorf("over budget after the second grading: job 2 %v (want false), job 5 %v (want true)", got[2].OverBudget, got[5].OverBudget)
	}
	clear(calls)
	Each(context.Background(), 4, 1, grade)
	if calls[2] != 1 {
		t.Errorf("one at a time: job 2 graded %d times, want 1 (it was alone)", calls[2])
	}
}
