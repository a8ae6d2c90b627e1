package wassal

import (
	"context"
	"strings"
	"time"

	"outboxlab/core/changelog"
	"outboxlab/core/worker"
)

// recordStep records one worker step in the run's change log (changelog):
// its events' timeline lines (line renders one) and the rows they changed. A step with no
// event records nothing.
func recordStep(ctx context.Context, at time.Time, events []worker.Event, line func(worker.Event) string) error {
	if len(events) == 0 {
		return nil
	}
	lines := make([]string, len(events))
	for i, e := range events {
		lines[i] = line(e)
	}
	return changelog.Event(ctx, at, strings.Join(lines, "\n"))
}
