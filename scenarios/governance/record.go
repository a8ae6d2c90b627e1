package governance

import (
	"context"
	"strings"
	"time"

	"outboxlab/core/changelog"
)

// recordPass records the timeline lines from *from on (what a drain pass,
// and the host after it, did) in the run's change log, with the rows they
// changed; nothing when the pass said nothing.
func recordPass(ctx context.Context, at time.Time, timeline []string, from *int) error {
	lines := timeline[*from:]
	if len(lines) == 0 {
		return nil
	}
	*from = len(timeline)
	return changelog.Event(ctx, at, strings.Join(lines, "\n"))
}
