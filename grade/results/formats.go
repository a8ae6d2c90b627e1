package results

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"strings"
)

func encode(v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// summary is the grade in a line or two, for a results file's top output.
func summary(r Results) string {
	held, total := r.Score()
	return fmt.Sprintf("%s (seed %d): %d of %d checks held\n%s", r.Title, r.Seed, held, total, r.Verdict)
}

// Gradescope's results.json: score, output, output_format, visibility and
// tests of {name, score, max_score, status, output, visibility}.
type (
	gsResults struct {
		Score            float64  `json:"score"`
		Output           string   `json:"output"`
		OutputFormat     string   `json:"output_format"`
		Visibility       string   `json:"visibility"`
		StdoutVisibility string   `json:"stdout_visibility"`
		Tests            []gsTest `json:"tests"`
	}
	gsTest struct {
		Name       string  `json:"name"`
		Score      float64 `json:"score"`
		MaxScore   float64 `json:"max_score"`
		Status     string  `json:"status,omitempty"`
		Output     string  `json:"output"`
		Visibility string  `json:"visibility"`
	}
)

// gradescope writes one visible test per check, and the worker's output
// in a hidden test worth nothing: Gradescope shows it to staff only.
func gradescope(r Results) ([]byte, error) {
	held, _ := r.Score()
	out := gsResults{Score: float64(held), Output: summary(r), OutputFormat: "text", Visibility: "visible",
		StdoutVisibility: "hidden", Tests: []gsTest{}}
	for _, c := range r.Checks {
		t := gsTest{Name: c.Name, MaxScore: 1, Status: "failed", Output: c.message(), Visibility: "visible"}
		if c.Passed {
			t.Score, t.Status, t.Output = 1, "passed", c.Detail
		}
		out.Tests = append(out.Tests, t)
	}
	if len(r.Output) > 0 {
		out.Tests = append(out.Tests, gsTest{Name: "the worker's last output (staff only)",
			Output: strings.Join(r.Output, "\n"), Visibility: "hidden"})
	}
	return encode(out)
}

// PrairieLearn's results.json: gradable, score from 0 to 1, message, and
// tests of {name, points, max_points, message, output}. It cannot hide a
// test from students, so the worker's output is not in it.
type (
	plResults struct {
		Gradable bool     `json:"gradable"`
		Score    float64  `json:"score"`
		Message  string   `json:"message"`
		Output   string   `json:"output"`
		Tests    []plTest `json:"tests"`
	}
	plTest struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		Points      int    `json:"points"`
		MaxPoints   int    `json:"max_points"`
		Message     string `json:"message"`
		Output      string `json:"output"`
	}
)

func prairielearn(r Results) ([]byte, error) {
	held, total := r.Score()
	score := 0.0
	if total > 0 {
		score = float64(held) / float64(total)
	}
	out := plResults{Gradable: true, Score: score, Message: summary(r), Tests: []plTest{}}
	for _, c := range r.Checks {
		t := plTest{Name: c.Name, Description: variationText(c), MaxPoints: 1, Message: c.message()}
		if c.Passed {
			t.Points, t.Output = 1, c.Detail
		}
		out.Tests = append(out.Tests, t)
	}
	return encode(out)
}

// variationText says which run a check is of.
func variationText(c Check) string {
	switch v := c.variation(); v {
	case "":
		return ""
	case "v1":
		return "v1: the course's own run"
	default:
		return v + ": a variation drawn from the seed"
	}
}

// JUnit XML, one test case per check, a failure (not exercised too) with
// its detail: for a student's own CI, which shows every line, so no output.
type (
	juSuite struct {
		XMLName  xml.Name `xml:"testsuite"`
		Name     string   `xml:"name,attr"`
		Tests    int      `xml:"tests,attr"`
		Failures int      `xml:"failures,attr"`
		Cases    []juCase `xml:"testcase"`
	}
	juCase struct {
		ClassName string     `xml:"classname,attr"`
		Name      string     `xml:"name,attr"`
		Failure   *juFailure `xml:"failure,omitempty"`
	}
	juFailure struct {
		Message string `xml:"message,attr"`
	}
)

func junit(r Results) ([]byte, error) {
	s := juSuite{Name: "outboxlab grade " + r.Day, Tests: len(r.Checks)}
	for _, c := range r.Checks {
		tc := juCase{ClassName: "grade." + r.Day, Name: c.Name}
		if v := c.variation(); v != "" {
			tc.ClassName += "." + v
		}
		if !c.Passed {
			tc.Failure = &juFailure{c.message()}
			s.Failures++
		}
		s.Cases = append(s.Cases, tc)
	}
	b, err := xml.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, err
	}
	return append([]byte(xml.Header), append(b, '\n')...), nil
}

// The lab's own JSON: every check with its variation, outcome and points.
type (
	ownResults struct {
		Day      string    `json:"day"`
		Seed     uint64    `json:"seed"`
		Score    int       `json:"score"`
		MaxScore int       `json:"max_score"`
		Passed   bool      `json:"passed"`
		Verdict  string    `json:"verdict"`
		Tests    []ownTest `json:"tests"`
	}
	ownTest struct {
		Name      string `json:"name"`
		Variation string `json:"variation"`
		Outcome   string `json:"outcome"` // held, broken, not_exercised
		Score     int    `json:"score"`
		MaxScore  int    `json:"max_score"`
		Detail    string `json:"detail"`
	}
)

func ownJSON(r Results) ([]byte, error) {
	held, total := r.Score()
	out := ownResults{Day: r.Day, Seed: r.Seed, Score: held, MaxScore: total, Passed: total > 0 && held == total,
		Verdict: r.Verdict, Tests: []ownTest{}}
	for _, c := range r.Checks {
		t := ownTest{Name: c.Name, Variation: c.variation(), Outcome: "broken", MaxScore: 1, Detail: c.Detail}
		switch {
		case c.Passed:
			t.Outcome, t.Score = "held", 1
		case c.NotExercised:
			t.Outcome = "not_exercised"
		}
		out.Tests = append(out.Tests, t)
	}
	return encode(out)
}
