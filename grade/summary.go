package grade

import (
	"fmt"
	"regexp"
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
	InFull   int               `json:"in_full"`
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
}

// Summary is the last Run's summary (nil before a Run).
func (o *Options) Summary() *Summary { return o.summary }

// summing collects a grade's summary as its variations finish.
type summing struct {
	s      *Summary
	byName map[string]*Failing
}

func newSumming(o *Options) *summing {
	return &summing{s: &Summary{Day: o.Day.ID, Title: o.Day.Title, Seed: o.Seed, Variations: o.Variations,
		Only: o.Only, Passed: true, InFull: max(o.Only, 1)}, byName: map[string]*Failing{}}
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
			m.failing(c, tag)
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

// failing records c, failing in the run tagged tag.
func (m *summing) failing(c report.Check, tag string) {
	f := m.byName[checkKey(c.Name)]
	if f == nil {
		f = &Failing{Name: c.Name, Detail: c.Detail}
		f.place(m.s.Day)
		m.byName[checkKey(c.Name)] = f
		if m.s.First == nil {
			m.s.First = f
		} else {
			m.s.Others = append(m.s.Others, f)
		}
	}
	if tag != "" {
		f.In = append(f.In, tag)
	}
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
		"        → look at "+f.look())
	if len(s.Others) > 0 {
		out = append(out, "", fmt.Sprintf("Also failing (%d more):", len(s.Others)))
		for _, o := range s.Others {
			out = append(out, "  "+report.MarkFail+"  "+o.Name+" — "+o.where()+" · §"+o.Section+todoSuffix(o))
		}
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

// todoSuffix is " · TODO #1, #4" for a check that belongs to TODOs.
func todoSuffix(f *Failing) string {
	if len(f.TODOs) == 0 {
		return ""
	}
	return " · " + f.todoText()
}

// Closing are the lines after the workers' output: the verdict and the
// commands that show more.
func (s *Summary) Closing() []string {
	if s.Passed {
		return []string{"", "VERDICT: " + report.VerdictPass + " every check held in every run that exercised it, and each was exercised: the worker does what the Day asks"}
	}
	n := len(s.Others) + 1
	out := []string{"", fmt.Sprintf("VERDICT: %s %s failed (%s): fix the first one above, then grade again",
		report.VerdictFail, report.Plural(s.Failed, "check"), report.Plural(n, "distinct check"))}
	if c := s.Commands["in_full"]; c != "" {
		out = append(out, fmt.Sprintf("v%d in full:  %s", s.InFull, c))
	}
	return out
}
