package cli

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"strings"
	"time"

	"outboxlab/core/report"
)

// recordOutcomes reads each check's "outcome" from the record line of a
// report's header, where the record says one ("held", "broken", "not
// exercised"); "" for a check whose record says none. nil without a record.
func recordOutcomes(text string) []string {
	header, _, ok := report.SplitHeader(text)
	if !ok {
		return nil
	}
	for _, line := range strings.Split(header, "\n") {
		js, ok := strings.CutPrefix(line, "record:")
		if !ok {
			continue
		}
		var r struct {
			Checks []struct {
				Outcome string `json:"outcome"`
			} `json:"checks"`
		}
		if json.Unmarshal([]byte(strings.TrimSpace(js)), &r) != nil {
			return nil
		}
		out := make([]string, len(r.Checks))
		for i, c := range r.Checks {
			out[i] = c.Outcome
		}
		return out
	}
	return nil
}

// notExercised reports whether an outcome says the check's mechanism was never exercised.
func notExercised(outcome string) bool {
	o := strings.ToLower(strings.NewReplacer("_", " ", "-", " ").Replace(outcome))
	return o == "not exercised" || o == "n/a"
}

// classCSV is one line per report, with a header line: when it started,
// whether it is the run that counts (--pick), its standing and why; passed
// is true only for a row that stands passed.
func classCSV(c class) []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Write([]string{"student", "scenario", "kind", "report", "started", "counts", "flags", "checks_passed", "checks_total",
		"verdict", "standing", "why", "passed", "verified", "against_reference", "checks_not_exercised",
		"worker", "worker_command", "regrade_seed", "regraded_alone"})
	count := counted(c.Rows, c.Pick)
	for i, s := range c.Rows {
		st, why := standingOf(s)
		if s.Note != "" {
			why = strings.TrimPrefix(why+"; "+s.Note, "; ")
		}
		started := ""
		if t := s.Doc.Info.Started; !t.IsZero() {
			started = t.UTC().Format(time.RFC3339)
		}
		w.Write(append([]string{s.Student, scenarioOf(s), kindOf(s), relPath(s), started, fmt.Sprint(count[i]), flagsOf(s.Doc),
			fmt.Sprint(report.ChecksPassed(s.Checks)), fmt.Sprint(len(s.Checks)), verdictWord(s.Doc),
			string(st), why, fmt.Sprint(st == standPassed), fmt.Sprint(s.Verify.Verified), s.RefDiff,
			fmt.Sprint(report.ChecksNotExercised(s.Checks))}, workerColumns(s)...))
	}
	w.Flush()
	return b.Bytes()
}

// workerColumns are a row's worker's CSV cells: its folder, its command,
// the seed it was regraded with and whether it was regraded alone.
func workerColumns(s submission) []string {
	w := s.Worker
	if w == nil {
		return []string{"", "", "", ""}
	}
	out := []string{w.Folder + "/", w.Command(), "", ""}
	if rg := w.Regrade; rg != nil {
		out[2], out[3] = fmt.Sprint(rg.Seed), fmt.Sprint(rg.Alone)
	}
	return out
}

// The JUnit XML that CI servers and learning platforms read.
type (
	junitSuites struct {
		XMLName  xml.Name     `xml:"testsuites"`
		Name     string       `xml:"name,attr"`
		Tests    int          `xml:"tests,attr"`
		Failures int          `xml:"failures,attr"`
		Skipped  int          `xml:"skipped,attr"`
		Suites   []junitSuite `xml:"testsuite"`
	}
	junitSuite struct {
		Name       string          `xml:"name,attr"`
		Tests      int             `xml:"tests,attr"`
		Failures   int             `xml:"failures,attr"`
		Skipped    int             `xml:"skipped,attr"`
		Properties []junitProperty `xml:"properties>property"`
		Cases      []junitCase     `xml:"testcase"`
	}
	junitProperty struct {
		Name  string `xml:"name,attr"`
		Value string `xml:"value,attr"`
	}
	junitCase struct {
		ClassName string        `xml:"classname,attr"`
		Name      string        `xml:"name,attr"`
		Failure   *junitMessage `xml:"failure,omitempty"`
		Skipped   *junitMessage `xml:"skipped,omitempty"`
	}
	junitMessage struct {
		Message string `xml:"message,attr"`
	}
)

// verifyCase is the name of the test case that says whether a report
// verifies; regradeCase, for a grade report, whether a regrade of the
// student's worker bears it out.
const (
	verifyCase  = "report verifies (a rerun of its scenario and flags reproduces its body)"
	regradeCase = "regraded from the worker (the lab's own grade of it passes)"
)

// classJUnit is one test suite per report: a test case per check (failed
// when it did not hold, or was not exercised: a run that judged nothing has
// not passed) and one for its standing (verify, or the regrade).
func classJUnit(c class) []byte {
	all := junitSuites{Name: "outboxlab class " + c.Dir}
	for _, s := range c.Rows {
		class := s.Student + "." + scenarioOf(s)
		suite := junitSuite{Name: s.Student + " · " + scenarioOf(s), Properties: []junitProperty{
			{"student", s.Student}, {"scenario", scenarioOf(s)}, {"report", relPath(s)},
			{"flags", flagsOf(s.Doc)}, {"verdict", report.BodyVerdict(s.Doc.Body)}, {"against_reference", s.RefDiff},
			{"standing", string(standingWord(s))}, {"worker", workerColumns(s)[1]},
		}}
		for i, ch := range s.Checks {
			tc := junitCase{ClassName: class, Name: ch.Name}
			switch {
			case ch.Outcome == report.OutcomeNotExercised || notExercised(s.Outcomes[i]):
				tc.Failure = &junitMessage{"not exercised: " + ch.Detail}
			case !ch.Passed:
				tc.Failure = &junitMessage{ch.Detail}
			}
			suite.Cases = append(suite.Cases, tc)
		}
		if len(s.Checks) == 0 {
			suite.Cases = append(suite.Cases, junitCase{ClassName: class, Name: "checks recorded",
				Failure: &junitMessage{"no checks recorded: the run judged nothing"}})
		}
		v := junitCase{ClassName: class, Name: verifyCase}
		if isGradeReport(s.Doc) {
			v.Name = regradeCase
		}
		switch st, why := standingOf(s); {
		case st == standPassed, st == standFailed && !isGradeReport(s.Doc):
			// A failing run that verifies: its checks' cases say why.
		default:
			v.Failure = &junitMessage{string(st) + ": " + why}
		}
		suite.Cases = append(suite.Cases, v)
		for _, tc := range suite.Cases {
			suite.Tests++
			switch {
			case tc.Failure != nil:
				suite.Failures++
			case tc.Skipped != nil:
				suite.Skipped++
			}
		}
		all.Tests, all.Failures, all.Skipped = all.Tests+suite.Tests, all.Failures+suite.Failures, all.Skipped+suite.Skipped
		all.Suites = append(all.Suites, suite)
	}
	out, err := xml.MarshalIndent(all, "", "  ")
	if err != nil {
		// Strings and numbers only; an error is a bug.
		panic(fmt.Sprintf("encode JUnit XML: %v", err))
	}
	return append([]byte(xml.Header), append(out, '\n')...)
}
