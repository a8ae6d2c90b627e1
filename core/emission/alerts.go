package emission

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"outboxlab/core/clock"
)

// The alert names the host emits.
const (
	AlertDeadLettered     = "governance_outbox.dead_lettered"
	AlertDeadLetterRepeat = "governance_outbox.dead_letter_repeated"
	AlertThresholdNear    = "governance_outbox.retry_threshold_near"
	AlertThresholdPassed  = "governance_outbox.threshold_reached_dead_letter_off"
)

// AlertLine is one alert or warning the host emitted.
type AlertLine struct {
	At      time.Time
	Level   string // ALERT or WARN
	Name    string
	EntryID int64
	Text    string // the whole line after the level: name and minimized metadata
}

// ReasonCount is the dead-letter counter for one reason code and provider.
type ReasonCount struct {
	ReasonCode string
	Provider   string
	Count      int
}

// Alerts is the host's side of the seed's alerting duties, fed by a drain's
// events: a dead-letter counter (overall and per reason code and provider),
// one event line per dead-letter transition, an alert when a reason code
// repeats on a provider, and a warning when an entry's retry count reaches
// MaxRetryAttempts-1. Lines carry minimized metadata only: ids, provider,
// region, tenant, workload, codes and counts, never a payload or an error message.
type Alerts struct {
	mu       sync.Mutex
	opts     Options
	lines    []AlertLine
	total    int
	byReason map[[2]string]int
}

// NewAlerts returns a host alert sink for a drain running with opts.
func NewAlerts(opts Options) *Alerts {
	return &Alerts{opts: opts, byReason: map[[2]string]int{}}
}

// Observe takes one drain event; pass it to Drain.Observe.
func (a *Alerts) Observe(ev Event) {
	if ev.Kind != Handled {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	t, e := ev.Transition, ev.Entry
	attempt := Field("attempt", fmt.Sprintf("%d/%d", t.RetryCount, a.opts.MaxRetryAttempts))
	switch {
	case t.To == DeadLettered:
		a.total++
		key := [2]string{t.ReasonCode, e.Provider}
		a.byReason[key]++
		a.add(t.At, "ALERT", AlertDeadLettered, e, Field("reason", t.ReasonCode), attempt, Field("dead_lettered_total", strconv.Itoa(a.total)))
		if n := a.byReason[key]; n > 1 {
			a.lines = append(a.lines, AlertLine{At: t.At, Level: "ALERT", Name: AlertDeadLetterRepeat, EntryID: e.ID,
				Text: strings.Join([]string{AlertDeadLetterRepeat, Field("reason", t.ReasonCode), Field("provider", e.Provider),
					Field("count", strconv.Itoa(n))}, " ")})
		}
	case t.To.FailedAttempt() && t.PastThreshold && t.RetryCount == a.opts.MaxRetryAttempts:
		a.add(t.At, "ALERT", AlertThresholdPassed, e, attempt, Field("next_retry", clock.DayStamp(t.NextRetryAt)))
	case t.To.FailedAttempt() && t.RetryCount == a.opts.MaxRetryAttempts-1:
		a.add(t.At, "WARN", AlertThresholdNear, e, attempt, Field("next_retry", clock.DayStamp(t.NextRetryAt)))
	}
}

func (a *Alerts) add(at time.Time, level, name string, e Entry, tail ...string) {
	fields := append([]string{name, Field("entry", strconv.FormatInt(e.ID, 10)), Field("key", e.Key),
		Field("correlation", e.CorrelationID), Field("receipt", e.DecisionReceiptID), Field("provider", e.Provider),
		Field("region", e.Region), Field("tenant", e.Tenant), Field("workload", e.Workload)}, tail...)
	a.lines = append(a.lines, AlertLine{At: at, Level: level, Name: name, EntryID: e.ID, Text: strings.Join(fields, " ")})
}

// Field renders one key=value pair of an alert line. A value that is empty or
// holds a space, a quote, an equals sign or anything unprintable is quoted
// (Go syntax), so every field stays one token however the host configured
// its reason codes: reason="poison message" is still the reason.
func Field(key, value string) string {
	plain := value != "" && !strings.ContainsFunc(value, func(r rune) bool {
		return r == '"' || r == '=' || r == '\\' || unicode.IsSpace(r) || !unicode.IsPrint(r)
	})
	if plain {
		return key + "=" + value
	}
	return key + "=" + strconv.Quote(value)
}

// Lines returns every line emitted so far, in order.
func (a *Alerts) Lines() []AlertLine {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]AlertLine(nil), a.lines...)
}

// DeadLettered returns the dead-letter counter.
func (a *Alerts) DeadLettered() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.total
}

// ByReason returns the per reason code and provider counters, sorted.
func (a *Alerts) ByReason() []ReasonCount {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]ReasonCount, 0, len(a.byReason))
	for k, n := range a.byReason {
		out = append(out, ReasonCount{ReasonCode: k[0], Provider: k[1], Count: n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].ReasonCode != out[j].ReasonCode {
			return out[i].ReasonCode < out[j].ReasonCode
		}
		return out[i].Provider < out[j].Provider
	})
	return out
}

// String renders the line as the host would log it: time, level, text.
func (l AlertLine) String() string {
	return fmt.Sprintf("%s  %-5s %s", clock.DayStamp(l.At), l.Level, l.Text)
}
