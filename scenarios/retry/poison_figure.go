package retry

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/plot"
)

// What the poison experiments share: the notification bodies they seed and
// the picture of their runs drawn from the audit log.

// malformedPrefix starts the LastError of a body rejected at delivery.
const malformedPrefix = "malformed body: "

// notification is the body of an OverdueNotification.
type notification struct {
	Notification *int `json:"notification"`
}

// notificationBody is the body seeded for message n: well formed, or cut
// short the way a truncated write leaves it.
func notificationBody(n int, malformed bool) string {
	if malformed {
		return fmt.Sprintf(`{"notification":%d`, n)
	}
	return fmt.Sprintf(`{"notification":%d}`, n)
}

// parseNotification is the body's validation: JSON with a positive
// notification number, and nothing else accepted.
func parseNotification(body string) error {
	var n notification
	if err := json.Unmarshal([]byte(body), &n); err != nil {
		return errors.New("not JSON")
	}
	if n.Notification == nil || *n.Notification < 1 {
		return errors.New("no notification number")
	}
	return nil
}

// poisonTimeline draws every message of each run on the scenario clock from
// the run's audit log: a delivery •, processed ✓, a process death ✗ on the
// message it was handling, dead-lettered ☠. Its text stays out of the body
// (the timeline sections tell the same story line by line).
func poisonTimeline(runs []*poisonRun) plot.Figure {
	var lanes []plot.Lane
	var span time.Duration
	for _, run := range runs {
		keys := map[int64]string{}
		for _, m := range run.msgs {
			keys[m.ID] = m.Key
		}
		marks := map[int64][]plot.Mark{}
		for _, a := range run.audit {
			at := mustParseISO(a.At).Sub(clock.Start)
			span = max(span, at)
			symbol := map[string]string{actionDelivered: "•", actionProcessed: "✓", actionDied: "✗", actionDeadLettered: "☠"}[a.Action]
			if symbol == "" || a.MessageID == 0 {
				continue
			}
			marks[a.MessageID] = append(marks[a.MessageID], plot.Mark{At: at, Symbol: symbol, Key: keys[a.MessageID]})
		}
		for _, m := range run.msgs {
			lanes = append(lanes, plot.Lane{Label: run.position.name + " " + m.Key, Marks: marks[m.ID], Note: string(m.Status)})
		}
	}
	f := plot.Timeline("timeline", "Each message on the scenario clock, from the audit log", lanes, clock.Start, span, 60,
		"• delivered   ✓ processed   ✗ the process died handling it   ☠ dead-lettered")
	f.Text = ""
	return f
}
