package retry

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"outboxlab/core/report"
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

// intIn checks that an integer flag is within [lo, hi].
func intIn[N ~int | ~int64](name string, v, lo, hi N) error {
	if v < lo || v > hi {
		return fmt.Errorf("%s must be between %d and %d, got %d", name, lo, hi, v)
	}
	return nil
}

// millisIn checks that a duration flag is within [lo, hi] and a whole number
// of milliseconds: the course's scripts compute in integer milliseconds.
func millisIn(name string, v, lo, hi time.Duration) error {
	switch {
	case v < lo || v > hi:
		return fmt.Errorf("%s must be between %s and %s, got %s", name, lo, hi, v)
	case v%time.Millisecond != 0:
		return fmt.Errorf("%s must be a whole number of milliseconds, got %s", name, v)
	}
	return nil
}

// capNotBelowBase checks that a cap flag is not below the base it caps.
func capNotBelowBase(capFlag string, ceiling time.Duration, baseFlag string, base time.Duration) error {
	if ceiling < base {
		return fmt.Errorf("%s %s is below %s %s", capFlag, ceiling, baseFlag, base)
	}
	return nil
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

// failedChecks is the set of the names of r's failed checks.
func failedChecks(r *report.Report) map[string]bool {
	out := map[string]bool{}
	for _, c := range r.Result().Checks {
		if !c.Passed {
			out[c.Name] = true
		}
	}
	return out
}
