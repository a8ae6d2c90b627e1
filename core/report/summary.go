package report

import (
	"cmp"
	"path"
	"slices"
	"strings"
	"time"
)

// Summary is summary.json: what the index summarises, in words and figures.
type Summary struct {
	Summarises string    `json:"summarises"`
	Generated  time.Time `json:"generated"`
	Version    string    `json:"version"`
	Reports    int       `json:"reports"`
	// Passed is true when at least one report was found and every one of
	// them passed its checks with a header that agrees with its body: never
	// true over a failing report, however old.
	Passed bool `json:"passed"`
	// Failed names the scenarios (student/scenario in a class folder) whose
	// newest report failed; FailedReports every report that failed.
	Failed        []string `json:"failed"`
	FailedReports []string `json:"failed_reports"`
	// NotExercised names those of Failed whose newest report's verdict is
	// NOT EXERCISED: nothing broke, but the run did not show its point.
	NotExercised []string `json:"not_exercised"`
	// HeaderDisagrees lists the reports whose header disagrees with their body.
	HeaderDisagrees []string `json:"header_disagrees"`
	// NotRegraded lists the passing grade reports: their checks are the
	// student's word until class regrades the worker, so passed is false.
	NotRegraded []string `json:"not_regraded"`
	Skipped     []Skip   `json:"skipped"`
	// Scenarios is the newest report of each scenario (of each student's
	// scenario in a class folder), in course order.
	Scenarios []Entry `json:"scenarios"`
}

// summaryWhat is what summary.json says it summarises.
const summaryWhat = "every report found below this directory at any depth (reports: how many; " +
	"skipped: the files that are not, and why). passed: every report passed its checks and its header " +
	"agrees with its body, and none is a grade report nobody regraded (not_regraded). scenarios: the newest report of each scenario (and student), in course order; " +
	"failed: those of them that failed (not_exercised: those of them whose mechanism was not exercised); " +
	"failed_reports: every report that failed."

func summarize(sc Scan, course Course, now time.Time, version string) Summary {
	s := Summary{Summarises: summaryWhat, Generated: now.UTC(), Version: version, Reports: len(sc.Entries),
		Failed: []string{}, FailedReports: []string{}, NotExercised: []string{}, HeaderDisagrees: []string{}, NotRegraded: []string{}, Skipped: sc.Skipped, Scenarios: []Entry{}}
	if s.Skipped == nil {
		s.Skipped = []Skip{}
	}
	seen := map[string]bool{}
	for _, e := range sc.Entries { // newest first: the first of each scenario is its newest
		if k := e.Student + "/" + e.Scenario; !seen[k] {
			seen[k] = true
			s.Scenarios = append(s.Scenarios, e)
		}
		if e.ExitCode != 0 {
			s.FailedReports = append(s.FailedReports, e.Report)
		}
		if len(e.Disagrees) > 0 {
			s.HeaderDisagrees = append(s.HeaderDisagrees, e.Report)
		}
		if e.NotRegraded {
			s.NotRegraded = append(s.NotRegraded, e.Report)
		}
	}
	rank := course.Rank()
	slices.SortStableFunc(s.Scenarios, func(a, b Entry) int {
		return cmp.Or(rank(a.Scenario)-rank(b.Scenario), strings.Compare(a.Scenario, b.Scenario), strings.Compare(a.Student, b.Student))
	})
	for _, e := range s.Scenarios {
		if e.ExitCode != 0 {
			s.Failed = append(s.Failed, path.Join(e.Student, e.Scenario))
			if NotExercisedVerdict(e.Verdict) {
				s.NotExercised = append(s.NotExercised, path.Join(e.Student, e.Scenario))
			}
		}
	}
	s.Passed = len(sc.Entries) > 0 && len(s.FailedReports) == 0 && len(s.HeaderDisagrees) == 0 && len(s.NotRegraded) == 0
	return s
}

// Rank returns a scenario's place in the course; a scenario the course does
// not know comes after every one it does.
func (c Course) Rank() func(string) int {
	pos := map[string]int{}
	for i, name := range c.Order {
		pos[name] = i
	}
	return func(name string) int {
		if i, ok := pos[name]; ok {
			return i
		}
		return len(c.Order)
	}
}
