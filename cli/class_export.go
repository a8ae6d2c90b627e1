package cli

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"strings"

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

// classCSV is one line per report, with a header line.
func classCSV(c class) []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Write([]string{"student", "scenario", "kind", "report", "flags", "checks_passed", "checks_total",
		"verdict", "passed", "verified", "verify_note", "against_reference", "checks_not_exercised"})
	for _, s := range c.Rows {
		note := s.Verify.Reason
		if s.Note != "" {
			note = strings.TrimPrefix(note+"; "+s.Note, "; ")
		}
		w.Write([]string{s.Student, scenarioOf(s), kindOf(s), relPath(s), flagsOf(s.Doc),
			fmt.Sprint(report.ChecksPassed(s.Checks)), fmt.Sprint(len(s.Checks)), verdictWord(s.Doc),
			fmt.Sprint(s.Passed), fmt.Sprint(s.Verify.Verified), note, s.RefDiff,
			fmt.Sprint(report.ChecksNotExercised(s.Checks))})
	}
	w.Flush()
	return b.Bytes()
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

// verifyCase is the name of the test case that says whether a report verifies.
const verifyCase = "report verifies (a rerun of its scenario and flags reproduces its body)"

// classJUnit is one test suite per report: a test case per check (failed,
// or skipped when its outcome is "not exercised") and one for verify.
func classJUnit(c class) []byte {
	all := junitSuites{Name: "outboxlab class " + c.Dir}
	for _, s := range c.Rows {
		class := s.Student + "." + scenarioOf(s)
		suite := junitSuite{Name: s.Student + " · " + scenarioOf(s), Properties: []junitProperty{
			{"student", s.Student}, {"scenario", scenarioOf(s)}, {"report", relPath(s)},
			{"flags", flagsOf(s.Doc)}, {"verdict", report.BodyVerdict(s.Doc.Body)}, {"against_reference", s.RefDiff},
		}}
		for i, ch := range s.Checks {
			tc := junitCase{ClassName: class, Name: ch.Name}
			switch {
			case ch.Outcome == report.OutcomeNotExercised || notExercised(s.Outcomes[i]):
				tc.Skipped = &junitMessage{"not exercised: " + ch.Detail}
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
		if !s.Verify.Verified {
			v.Failure = &junitMessage{s.Verify.Reason}
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
