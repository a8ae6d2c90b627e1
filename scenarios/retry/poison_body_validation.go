package retry

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"outboxlab/core/outbox"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

const bodyValidation = "poison-body-validation"

func init() {
	scenarios.Register(&scenarios.Scenario{
		Name:    bodyValidation,
		Family:  "retry",
		Kind:    report.Experiment,
		Summary: "The second defence: a malformed body dead-lettered on its first delivery, the handler never called",
		Long: `The course's second defence against poison messages, after the attempt counter:
validating the body before the work. The queue is poison-counter's, but the
poison is in the data: --malformed notifications carry a body cut short, and
the handler's parse of such a body kills the consumer process (SIGKILL).

Both runs count attempts at delivery (poison-counter's fix) and run real child
processes. "counter only" hands every body to the handler: the malformed one
kills threshold − 1 lifetimes before the counter isolates it. "validation
first" parses each body at delivery, before the handler: a malformed body is
dead-lettered on that first delivery, the handler never sees it, no process
dies, and its retries are never spent. Every figure is read back from the
outbox rows, the audit log (which records each handler call before the
handler runs) and how the child processes exited.`,
		Example: `  outboxlab poison-body-validation
  outboxlab poison-body-validation --malformed 1,4 --threshold 5
  outboxlab poison-body-validation --validate=false   # no validation: the checks fail`,
		FailsWith: []string{"--validate=false"},
		// Too few restarts for the counter alone to isolate the malformed
		// body: the comparison with the counter is not exercised.
		NotExercisedWith: []string{"--max-restarts", "2"},
		Bind:             func(fs *pflag.FlagSet) scenarios.Options { return bindBody(fs) },
	})
}

// bodyOptions are the experiment's parameters; the queue's defaults are
// poison-counter's.
type bodyOptions struct {
	scenarios.Declared
	Messages    int
	Malformed   []int
	Threshold   int
	MaxRestarts int
	CheckBody   bool
}

// bindBody declares the flags; --messages is poison-counter's. A threshold
// of 1 dead-letters every message on its first delivery: nothing would be
// left for validation to spare, so --threshold starts at 2.
func bindBody(fs *pflag.FlagSet) *bodyOptions {
	o := &bodyOptions{}
	f := declareOn(&o.Declared, fs)
	declareMessages(f, &o.Messages)
	fs.IntSliceVar(&o.Malformed, "malformed", []int{3}, "numbers of the messages whose body is malformed (comma list)")
	f.Int(&o.Threshold, "threshold", 3, 2, 100, "attempts after which a message is dead-lettered (counted at delivery)")
	f.Int(&o.MaxRestarts, "max-restarts", 12, 1, maxLifetimes, "process lifetimes the supervisor starts at most, per run")
	f.Bool(&o.CheckBody, "validate", true, "validate each body at delivery, before the handler (false: the counter alone)")
	return o
}

func (o *bodyOptions) Validate() error {
	var none error
	if len(o.Malformed) == 0 {
		none = errors.New("--malformed needs at least one message number")
	}
	if err := firstError(o.CheckDeclared(), none); err != nil {
		return err
	}
	seen := map[int]bool{}
	for _, n := range o.Malformed {
		if n < 1 || n > o.Messages {
			return fmt.Errorf("--malformed %d is not a message number (1..%d)", n, o.Messages)
		}
		if seen[n] {
			return fmt.Errorf("--malformed %d is listed twice", n)
		}
		seen[n] = true
	}
	return nil
}

// poison is the poison-counter machinery set up for this experiment: no
// message is lethal by its key; the malformed bodies are.
func (o *bodyOptions) poison() *poisonOptions {
	return &poisonOptions{Messages: o.Messages, Threshold: o.Threshold, MaxRestarts: o.MaxRestarts, malformed: o.Malformed}
}

func (o *bodyOptions) malformedKeys() []string {
	keys := make([]string, len(o.Malformed))
	for i, n := range o.Malformed {
		keys[i] = noteKey(n)
	}
	slices.Sort(keys)
	return keys
}

func (o *bodyOptions) Run(ctx context.Context, env scenarios.Env) (*report.Report, error) {
	runs, err := o.superviseBoth(ctx, env)
	if err != nil {
		return nil, err
	}
	return o.render(runs, env.Verbose), nil
}

// superviseBoth runs the counter alone, then the counter behind validation
// (unless --validate=false), each on its own database.
func (o *bodyOptions) superviseBoth(ctx context.Context, env scenarios.Env) ([]*poisonRun, error) {
	common := []string{"-record-handler", "-die-on-malformed"}
	validated := common
	if o.CheckBody {
		validated = append(slices.Clone(common), "-validate")
	}
	return o.poison().superviseAll(ctx, env, []counterPosition{
		{"counter only", "counter_only", true, "counter-only", common},
		{"validation first", "validation_first", true, "outbox", validated},
	})
}

// bodyMetrics are the numbers of one run, read back from its rows, its
// audit log and how its child processes ended.
type bodyMetrics struct {
	lifetimes, deaths      int
	processed, deadLetters int
	remaining              int
	handlerCalls           int   // on the well-formed messages
	badDeliveries          []int // AttemptCount of each malformed message
	badTokens              []int // its ClaimToken: the queue's own count of deliveries
	badHandlerCalls        []int
	badRetriesLeft         []int // MaxAttempts − AttemptCount
	badStatuses            []outbox.Status
	badRejected            []bool // dead-lettered by validation, on its first delivery
	goodHandlerCallsPerKey map[string]int
}

func (o *bodyOptions) metrics(run *poisonRun) bodyMetrics {
	f := bodyMetrics{goodHandlerCallsPerKey: map[string]int{}}
	calls := map[int64]int{}
	for _, a := range run.audit {
		switch {
		case a.Actor == supervisor && a.Action == actionStarted:
			f.lifetimes++
		case a.Action == actionHandler:
			calls[a.MessageID]++
		}
	}
	for _, l := range run.lifetimes {
		if l.died && l.signal == sigkill {
			f.deaths++
		}
	}
	bad := o.malformedKeys()
	for _, m := range run.msgs {
		switch m.Status {
		case outbox.Processed:
			f.processed++
		case outbox.DeadLettered:
			f.deadLetters++
		default:
			f.remaining++
		}
		if !slices.Contains(bad, m.Key) {
			f.handlerCalls += calls[m.ID]
			f.goodHandlerCallsPerKey[m.Key] = calls[m.ID]
			continue
		}
		f.badDeliveries = append(f.badDeliveries, m.AttemptCount)
		f.badTokens = append(f.badTokens, int(m.ClaimToken))
		f.badHandlerCalls = append(f.badHandlerCalls, calls[m.ID])
		f.badRetriesLeft = append(f.badRetriesLeft, m.MaxAttempts-m.AttemptCount)
		f.badStatuses = append(f.badStatuses, m.Status)
		f.badRejected = append(f.badRejected, m.Status == outbox.DeadLettered && m.AttemptCount == 1 &&
			strings.HasPrefix(m.LastError, malformedPrefix))
	}
	return f
}

// bodyTable declares the comparison once: its columns and its JSON metrics.
var bodyTable = []scenarios.Metric[bodyMetrics]{
	{Label: "lifetimes", Key: "lifetimes", Value: func(f bodyMetrics) any { return f.lifetimes }},
	{Label: "process deaths", Key: "process_deaths", Value: func(f bodyMetrics) any { return f.deaths }},
	{Label: "malformed: deliveries", Key: "malformed_deliveries", Value: func(f bodyMetrics) any { return sumInts(f.badDeliveries) },
		Show: func(f bodyMetrics) string { return report.JoinInts(f.badDeliveries) }},
	{Label: "malformed: handler calls", Key: "malformed_handler_calls", Value: func(f bodyMetrics) any { return sumInts(f.badHandlerCalls) },
		Show: func(f bodyMetrics) string { return report.JoinInts(f.badHandlerCalls) }},
	{Label: "processed", Key: "processed", Value: func(f bodyMetrics) any { return f.processed }},
	{Label: "dead letters", Key: "dead_letters", Value: func(f bodyMetrics) any { return f.deadLetters }},
}

func sumInts(xs []int) int {
	t := 0
	for _, x := range xs {
		t += x
	}
	return t
}
