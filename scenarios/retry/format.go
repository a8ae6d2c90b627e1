package retry

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"outboxlab/core/report"
	"outboxlab/scenarios"
)

// firstError is the first of errs that is not nil: a Validate lists its
// flag checks in the order it reports them.
func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// declareOn starts a scenario's declarations on fs (durations written as a
// person types them, 1h, in --help and refusals alike).
func declareOn(d *scenarios.Declared, fs *pflag.FlagSet) *scenarios.Flags { return d.Declare(fs) }

// backoffCap relates a base delay and the cap on it, both declared: the cap
// may not be below the base. Each one's declared range is the one at the
// other's default (the cap down to the base's default, the base up to the
// cap's default), which --help shows; past it, up to baseMax and down to
// the cap's own minimum, a value is accepted as long as the cap is not
// below the base, and one that is is refused in those words.
type backoffCap struct {
	baseFlag, capFlag string
	base, ceiling     *time.Duration
}

func (b backoffCap) refusal() error {
	return fmt.Errorf("--%s %s is below --%s %s", b.capFlag, *b.ceiling, b.baseFlag, *b.base)
}

// relate makes base and ceiling follow each other; baseMax and capMin are
// their bounds whatever the other flag says.
func (b backoffCap) relate(base, ceiling *scenarios.Ranged[time.Duration], baseMin, baseMax, capMin, capMax time.Duration) {
	base.Within(func() (time.Duration, time.Duration) { return baseMin, min(baseMax, max(*b.ceiling, baseMin)) },
		func(v, _, _ time.Duration) error {
			if v >= baseMin && v <= baseMax {
				return b.refusal()
			}
			return nil
		})
	ceiling.Within(func() (time.Duration, time.Duration) { return max(capMin, min(*b.base, capMax)), capMax },
		func(v, _, _ time.Duration) error {
			if v < *b.base && v <= capMax {
				return b.refusal()
			}
			return nil
		})
}

func joinMillis(ds []time.Duration) string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = strconv.FormatInt(d.Milliseconds(), 10)
	}
	return strings.Join(parts, ", ")
}

func joinInt64s(xs []int64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.FormatInt(x, 10)
	}
	return strings.Join(parts, ", ")
}

// shownValues is how many values of a list a table cell shows.
const shownValues = 6

// firstOf shortens a comma list to its first values and says how many more there are.
func firstOf(list string) string {
	parts := strings.Split(list, ", ")
	if len(parts) <= shownValues {
		return list
	}
	return strings.Join(parts[:shownValues], ", ") + fmt.Sprintf(", … (+%d)", len(parts)-shownValues)
}

// secondsText prints a duration in seconds, with milliseconds when it has any: 175.003 s.
func secondsText(d time.Duration) string {
	ms := d.Milliseconds()
	if ms%1000 == 0 {
		return fmt.Sprintf("%d s", ms/1000)
	}
	return fmt.Sprintf("%d.%03d s", ms/1000, ms%1000)
}

// explain writes under the checks why they failed for these flags: a failed
// check is a finding, and the report says what caused it. Each reason is a
// WHY paragraph, wrapped within the terminal under its first line.
func explain(r *report.Report, reasons []string) {
	for _, why := range reasons {
		r.Line(report.WrapLine("  WHY   "+strings.Join(strings.Fields(why), " "), "        "))
	}
}

// failedChecks is the set of the names of r's broken checks; a check that
// was not exercised says why in its own detail.
func failedChecks(r *report.Report) map[string]bool {
	out := map[string]bool{}
	for _, c := range r.Result().Checks {
		if c.Outcome == report.OutcomeBroken {
			out[c.Name] = true
		}
	}
	return out
}
