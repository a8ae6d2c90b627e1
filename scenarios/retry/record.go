package retry

import (
	"context"
	"fmt"
	"strings"
	"time"

	"outboxlab/core/changelog"
	"outboxlab/core/clock"
	"outboxlab/core/worker"
)

// recordStorm records one step of the storm pair's worker in the run's
// change log: its events' lines and the rows they changed.
func recordStorm(ctx context.Context, at time.Time, events []worker.Event) error {
	if len(events) == 0 {
		return nil
	}
	lines := make([]string, len(events))
	for i, e := range events {
		lines[i] = fmt.Sprintf("%s  %-9s %s", clock.Stamp(e.At), e.Worker, stormEventText(e))
	}
	return changelog.Event(ctx, at, strings.Join(lines, "\n"))
}

// record records what the visibility pair's consumers did since the last
// record (the lines they logged) in the run's change log, with the rows it
// changed; nothing when they logged nothing.
func (s *sim) record(ctx context.Context, at time.Time, from *int) error {
	evs := s.run.events[*from:]
	if len(evs) == 0 {
		return nil
	}
	*from = len(s.run.events)
	lines := make([]string, len(evs))
	for i, e := range evs {
		lines[i] = fmt.Sprintf("%s  %-9s %s", clock.Stamp(e.at), e.consumer, e.text)
	}
	return changelog.Event(ctx, at, strings.Join(lines, "\n"))
}
