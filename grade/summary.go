package grade

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"outboxlab/core/report"
)

// A grade's summary: what the terminal shows unless --full, and what --json
// carries beside the checks. The report file keeps every line; the summary
// says what broke first, in full, and lists the rest one line each.

// Summary is a finished grade, summed up.
type Summary struct {
	Day        string `json:"day"`
	Title      string `json:"title"`
	Seed       uint64 `json:"seed"`
	Variations int    `json:"variations"` // variations run beside the defaults
	// Only is the one variation run (--variation N, 1 the defaults); 0: all.
	Only   int        `json:"only,omitempty"`
	Case   string     `json:"case,omitempty"` // the one case run (--case)
	Runs   []RunLine  `json:"runs"`
	Passed bool       `json:"passed"`
	Failed int        `json:"failed_checks"` // failing checks, counted in every variation
	First  *Failing   `json:"first_failing,omitempty"`
	Others []*Failing `json:"other_failing,omitempty"`
	// Output is the last lines a worker printed in the first failing
	// variation, made safe (untrusted): escapes spelled out, secrets
	// replaced. The terminal shows them on stderr, beside the verdict.
	Output []string `json:"worker_output,omitempty"`
	// InFull is the variation whose full report the summary suggests
	// (the first failing one, else 1), and Commands the lab's commands it
	// offers (see the CLI), as the lab's name writes them.
	InFull int `json:"in_full"`
	// Smallest is the smallest failing case of the first failing check
	// (Options.Shrink); nil when the search did not run.
	Smallest *Case             `json:"smallest_case,omitempty"`
	Commands map[string]string `json:"commands,omitempty"`
}

// RunLine is one variation's line: its tag, what it is, its checks.
type RunLine struct {
	Tag    string `json:"tag"` // v1, v2, …
	Label  string `json:"label"`
	Held   int    `json:"held"`
	Failed int    `json:"failed"`
	Idle   int    `json:"not_exercised"` // judged in the runs that exercise them
}

// Failing is one failing check, the same name in every variation it failed in.
type Failing struct {
	Name   string   `json:"name"`
	Detail string   `json:"detail"` // in the first variation it failed in
	In     []string `json:"variations"`
	// Section is the protocol page's section the check enforces (7.1),
	// Anchor the page and its heading; TODOs the starter's TODOs it belongs
	// to (none: the protocol's, or what the starter already does), tagged
	// as the starter tags them (TODOTag: Day 16).
	Section string `json:"section"`
	Anchor  string `json:"anchor"`
	TODOs   []int  `json:"todos,omitempty"`
	TODOTag string `json:"todo_tag,omitempty"`

	limited bool // the run it first failed in stopped at one of the lab's limits
	allDone bool // every worker of that run said done
}

// Summary is the last Run's summary (nil before a Run).
func (o *Options) Summary() *Summary { return o.summary }

// summing collects a grade's summary as its variations finish.
type summing struct {
	s      *Summary
	byName map[string]*Failing
	all    []*Failing // in the report's order
}

func newSumming(o *Options) *summing {
	return &summing{s: &Summary{Day: o.Day.ID, Title: o.Day.Title, Seed: o.Seed, Variations: o.Variations,
		Only: o.Only, Case: o.Case, Passed: true, InFull: max(o.Only, 1)}, byName: map[string]*Failing{}}
}

// add records variation i's (0 the defaults) checks and, for the first
// failing variation, its workers' last output.
func (m *summing) add(i int, label string, g *graded) {
	tag := fmt.Sprintf("v%d", i+1)
	line := RunLine{Tag: tag, Label: label}
	for _, c := range g.checks {
		switch {
		case c.Outcome == report.OutcomeNotExercised:
			line.Idle++ // judged in the runs that exercise it
		case c.Passed:
			line.Held++
		default:
			line.Failed++
			if f, first := m.failing(c, tag); first {
				f.limited, f.allDone = g.r.Ended != "", allDone(g)
			}
		}
	}
	if line.Failed > 0 && m.s.Passed {
		m.s.Passed = false
		m.s.InFull = i + 1
		m.s.Output = g.output(tag)
	}
	m.s.Failed += line.Failed
	m.s.Runs = append(m.s.Runs, line)
}

// failing records c, failing in the run tagged tag ("": across the
// runs), and returns it and whether it is new (its first run).
func (m *summing) failing(c report.Check, tag string) (*Failing, bool) {
	f, seen := m.byName[checkKey(c.Name)]
	if !seen {
		f = &Failing{Name: c.Name, Detail: c.Detail}
		f.place(m.s.Day)
		m.byName[checkKey(c.Name)] = f
		m.all = append(m.all, f)
	}
	if tag != "" {
		f.In = append(f.In, tag)
	}
	return f, !seen
}

// finish picks the first failing check: the one that most likely is the
// cause of the others (firstRank), the report's order among equals.
func (m *summing) finish() *Summary {
	all := slices.Clone(m.all)
	slices.SortStableFunc(all, func(a, b *Failing) int { return firstRank(a) - firstRank(b) })
	if len(all) > 0 {
		m.s.First, m.s.Others = all[0], all[1:]
		if len(all[0].In) > 0 {
			m.s.InFull = runNumber(all[0].In[0])
		}
	}
	return m.s
}

// firstRank orders failing checks by how likely each is the cause of the
// rest: a broken protocol rule first (a worker that never says hello, or
// writes its own clock, fails the Day's checks as a consequence); then the
// integrity rules (no row lost or invented, ids only from the provider,
// the columns each change must write); then a worker that stopped (exited
// without done, killed for wall time, done with work left); then the
// Day's own checks; then the outcomes many bugs break (every healthy
// message Processed once, one payment update each, the queue drained in a
// run stopped at a limit); last the lab's limits reached, which a Day's bug
// (a poison retried for ever) causes.
func firstRank(f *Failing) int {
	name := strings.TrimPrefix(f.Name, "every run: ")
	switch {
	case f.In == nil:
		return 4 // exercised in no run: nothing happened, a consequence
	case strings.HasPrefix(name, "protocol: done and exit 0"):
		if strings.Contains(f.Detail, "exited") || strings.Contains(f.Detail, "wall time") ||
			strings.Contains(f.Detail, "after done") {
			return 2
		}
		return 5
	case strings.HasPrefix(name, "protocol: hello"):
		return -1 // the first rule: without it, no other can hold
	case strings.HasPrefix(name, "protocol: "):
		return 0
	case strings.HasPrefix(name, "the queue drained"):
		if f.allDone && !f.limited && strings.Contains(f.Detail, "still Pending") {
			return 2 // done with claimable work left: the worker stopped early
		}
		return 4
	case strings.HasPrefix(name, "every healthy message Processed once"), strings.HasPrefix(name, "one payment update per message"):
		return 4
	}
	for _, integrity := range []string{"no row deleted, inserted or duplicated", "transaction ids only from the provider",
		"no money moved", "UpdatedAtUtc, ProcessedAtUtc and DeadLetteredAtUtc written"} {
		if strings.HasPrefix(name, integrity) {
			return 1
		}
	}
	return 3
}

// allDone reports whether every worker of g's run said done.
func allDone(g *graded) bool {
	for _, w := range g.r.Workers {
		if !w.Done {
			return false
		}
	}
	return len(g.r.Workers) > 0
}

// never records the checks no run exercised (acrossRuns.never), each
// failing across the runs.
func (m *summing) never(checks []report.Check) {
	for _, c := range checks {
		m.s.Passed = false
		m.s.Failed++
		m.failing(c, "")
	}
}

// figures are the numbers in a check's name that a variation sets ("K = 1
// failures"): the same check in another variation has other numbers.
var figures = regexp.MustCompile(`\d+`)

// checkKey is what makes two variations' checks the same check: the name
// with its numbers taken out.
func checkKey(name string) string { return figures.ReplaceAllString(name, "#") }

// Lines are the summary as the terminal shows it on stdout, before the
// workers' output (Output, on stderr) and after it (Closing): logical
// lines the terminal lays out for its width, the lab's commands written
// with its name.
func (s *Summary) Lines() []string {
	runs := "the course's run and " + report.Plural(s.Variations, "variation")
	if s.Only > 0 {
		runs = fmt.Sprintf("variation %d of %d only", s.Only, s.Variations+1)
	}
	if s.Case != "" {
		runs = "the case --case gives, alone"
	}
	out := []string{"Grade — " + s.Title, fmt.Sprintf("Seed %d · %s", s.Seed, runs), ""}
	for _, r := range s.Runs {
		mark := report.MarkPass
		if r.Failed > 0 {
			mark = report.MarkFail
		}
		idle := ""
		if r.Idle > 0 {
			idle = fmt.Sprintf(", %d not exercised here", r.Idle)
		}
		out = append(out, fmt.Sprintf("  %-4s  %-24s %d of %d checks held%s", mark, r.Tag+" "+r.Label, r.Held, r.Held+r.Failed, idle))
	}
	if s.First == nil {
		return out
	}
	f := s.First
	out = append(out, "", "First failing check ("+f.where()+"):", "  "+report.MarkFail+"  "+f.Name, "        "+f.detail(),
		"      → look at "+f.look())
	if len(s.Others) > 0 {
		out = append(out, "", fmt.Sprintf("Also failing (%d more; each one's TODOs):", len(s.Others)))
		for _, o := range s.Others {
			out = append(out, o.oneLine())
		}
	}
	return append(out, s.Smallest.lines(s.Commands["case"])...)
}

// lines are the smallest failing case under its heading: its parameters,
// its whole timeline (repeats folded), the check's detail, and the command
// that replays it.
func (c *Case) lines(replay string) []string {
	if c == nil {
		return nil
	}
	what := fmt.Sprintf("shrunk from %s in %s", c.From, report.Plural(c.Reruns, "rerun"))
	if !c.Smaller {
		what = fmt.Sprintf("nothing smaller than %s fails it (%s)", c.From, report.Plural(c.Reruns, "rerun"))
	}
	out := []string{"", "Smallest failing case (" + what + "):"}
	for _, l := range c.Params {
		out = append(out, "  "+strings.ReplaceAll(l, "\n", "\n  "))
	}
	out = append(out, c.Timeline...)
	// The detail under the check, after an arrow as a report's check line
	// writes it: a terminal that lays the lines out again never runs the
	// check's name into it.
	out = append(out, "  "+report.MarkFail+"  "+c.Check, "        → "+c.Detail)
	if c.Unstable != "" {
		out = append(out, "  ! "+c.Unstable)
	}
	if replay != "" {
		out = append(out, "Replay it (exits 1):  "+replay)
	}
	return out
}

// where are the runs f failed in ("in v1, v3"; "across the runs").
func (f *Failing) where() string {
	if len(f.In) == 0 {
		return "across the runs"
	}
	return "in " + strings.Join(f.In, ", ")
}

// detail is f's detail, with the run it comes from.
func (f *Failing) detail() string {
	if len(f.In) == 0 {
		return f.Detail
	}
	return f.In[0] + ": " + f.Detail
}

// oneLine is f on one line of the narrowest terminal (report.MinWidth):
// its name, cut to fit, the runs it failed in and its TODOs.
func (f *Failing) oneLine() string {
	runs := "across the runs"
	switch n := len(f.In); {
	case n == 1:
		runs = f.In[0]
	case n > 1:
		runs = f.In[0] + "–" + f.In[n-1]
		if first, last := runNumber(f.In[0]), runNumber(f.In[n-1]); last-first+1 != n {
			runs = strings.Join(f.In, ",")
		}
	}
	suffix := " — " + runs
	if len(f.TODOs) > 0 {
		suffix += " · " + strings.TrimPrefix(f.todoText(), "TODO("+f.TODOTag+") ")
	}
	head := "  " + report.MarkFail + "  "
	name := f.Name
	if room := report.MinWidth - report.Width(head) - report.Width(suffix); report.Width(name) > room {
		r := []rune(name)
		for report.Width(string(r))+1 > room && len(r) > 0 {
			r = r[:len(r)-1]
		}
		name = strings.TrimRight(string(r), " ") + "…"
	}
	return head + name + suffix
}

// runNumber is 3 for v3.
func runNumber(tag string) int {
	var n int
	fmt.Sscanf(tag, "v%d", &n)
	return n
}

// Closing are the lines after the workers' output: the verdict and the
// commands that show more.
func (s *Summary) Closing() []string {
	if s.Passed {
		return []string{"", "VERDICT: " + report.VerdictPass + " every check held in every run that exercised it, and each was exercised: the worker does what the Day asks"}
	}
	n := len(s.Others) + 1
	out := []string{"", fmt.Sprintf("VERDICT: %s %s failed (%d distinct): fix the first one above",
		report.VerdictFail, report.Plural(s.Failed, "check"), n)}
	if c := s.Commands["in_full"]; c != "" {
		out = append(out, fmt.Sprintf("v%d in full:  %s", s.InFull, c))
	}
	return out
}
