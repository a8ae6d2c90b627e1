package ordered

import (
	"context"
	"strings"
	"time"

	"outboxlab/core/changelog"
)

// record records the timeline entries from *from on (what the consumer,
// the listener and the operator did since the last record) in the run's
// change log, with the rows they changed; nothing when there are none.
func (r *run) record(ctx context.Context, at time.Time, from *int) error {
	entries := r.timeline[*from:]
	if len(entries) == 0 {
		return nil
	}
	*from = len(r.timeline)
	var notes errorNotes
	lines := make([]string, len(entries))
	for i, e := range entries {
		lines[i] = timelineLine(e, &notes)
	}
	return changelog.Event(ctx, at, strings.Join(lines, "\n"))
}
