package results

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// fixture is testdata/grade.json: two variations of three checks, one of
// them failed, one not exercised, and a worker's output.
func fixture(t *testing.T) Results {
	t.Helper()
	raw, err := os.ReadFile("testdata/grade.json")
	if err != nil {
		t.Fatal(err)
	}
	var r Results
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestGolden: each format's file for the fixture, byte for byte
// (testdata/results.<format>; -update rewrites them, to be read like code).
func TestGolden(t *testing.T) {
	r := fixture(t)
	for _, f := range Formats {
		got, err := Write(f, r)
		if err != nil {
			t.Fatal(err)
		}
		golden := filepath.Join("testdata", "results."+f)
		if *update {
			os.WriteFile(golden, got, 0o644)
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from %s:\n%s", f, golden, got)
		}
	}
	if _, err := Write("moodle", r); err == nil || !strings.Contains(err.Error(), "gradescope, prairielearn, junit, json") {
		t.Errorf("an unknown format: %v", err)
	}
}

// TestGradescope field by field: a test per check, scores adding to the
// score, failing detail in the output, the worker's output only in a
// hidden test worth nothing.
func TestGradescope(t *testing.T) {
	b, _ := Write("gradescope", fixture(t))
	var gs struct {
		Score        *float64 `json:"score"`
		Output       string   `json:"output"`
		OutputFormat string   `json:"output_format"`
		Tests        []struct {
			Name       string   `json:"name"`
			Score      *float64 `json:"score"`
			MaxScore   *float64 `json:"max_score"`
			Status     string   `json:"status"`
			Output     string   `json:"output"`
			Visibility string   `json:"visibility"`
		} `json:"tests"`
	}
	if err := json.Unmarshal(b, &gs); err != nil {
		t.Fatal(err)
	}
	if gs.Score == nil || *gs.Score != 4 || gs.OutputFormat != "text" || !strings.Contains(gs.Output, "4 of 6 checks held") {
		t.Errorf("top: score %v, output_format %q, output %q", gs.Score, gs.OutputFormat, gs.Output)
	}
	if len(gs.Tests) != 7 {
		t.Fatalf("%d tests, want 6 checks and the hidden output", len(gs.Tests))
	}
	sum, max := 0.0, 0.0
	for _, tc := range gs.Tests[:6] {
		if tc.Score == nil || tc.MaxScore == nil || tc.Visibility != "visible" {
			t.Fatalf("test %q: score %v, max %v, visibility %q", tc.Name, tc.Score, tc.MaxScore, tc.Visibility)
		}
		sum, max = sum+*tc.Score, max+*tc.MaxScore
		if strings.Contains(tc.Output, "token") || strings.Contains(tc.Output, "claimed") {
			t.Errorf("test %q shows the worker's output to students: %q", tc.Name, tc.Output)
		}
	}
	if sum != *gs.Score || max != 6 {
		t.Errorf("tests add to %v of %v, want %v of 6", sum, max, *gs.Score)
	}
	if f := gs.Tests[1]; f.Status != "failed" || *f.Score != 0 || f.Output != "failed: PAY-003: AttemptCount 2 after 3 claims" {
		t.Errorf("the failing check: %+v", f)
	}
	if n := gs.Tests[2]; n.Status != "failed" || !strings.HasPrefix(n.Output, "not exercised: ") {
		t.Errorf("the check not exercised: %+v", n)
	}
	if h := gs.Tests[6]; h.Visibility != "hidden" || *h.MaxScore != 0 || !strings.Contains(h.Output, "worker-1: claimed PAY-003") {
		t.Errorf("the worker's output: %+v", h)
	}
}

// TestPrairieLearn field by field: score from 0 to 1, gradable, points
// adding up, the failing message, and no worker output anywhere.
func TestPrairieLearn(t *testing.T) {
	b, _ := Write("prairielearn", fixture(t))
	var pl struct {
		Gradable *bool    `json:"gradable"`
		Score    *float64 `json:"score"`
		Tests    []struct {
			Name      string `json:"name"`
			Points    *int   `json:"points"`
			MaxPoints *int   `json:"max_points"`
			Message   string `json:"message"`
			Output    *string
		} `json:"tests"`
	}
	if err := json.Unmarshal(b, &pl); err != nil {
		t.Fatal(err)
	}
	if pl.Gradable == nil || !*pl.Gradable || pl.Score == nil || *pl.Score < 0.666 || *pl.Score > 0.667 || len(pl.Tests) != 6 {
		t.Fatalf("gradable %v, score %v, %d tests", pl.Gradable, pl.Score, len(pl.Tests))
	}
	points, max := 0, 0
	for _, tc := range pl.Tests {
		points, max = points+*tc.Points, max+*tc.MaxPoints
	}
	if float64(points)/float64(max) != *pl.Score || max != 6 {
		t.Errorf("points %d of %d against score %v", points, max, *pl.Score)
	}
	if pl.Tests[1].Message != "failed: PAY-003: AttemptCount 2 after 3 claims" || pl.Tests[0].Message != "" {
		t.Errorf("messages: %q, %q", pl.Tests[0].Message, pl.Tests[1].Message)
	}
	if bytes.Contains(b, []byte("worker-1")) {
		t.Error("the worker's output is in a file students see")
	}
}

// TestJUnit: a case per check, failures with their detail (not exercised
// too), no worker output.
func TestJUnit(t *testing.T) {
	b, _ := Write("junit", fixture(t))
	var s juSuite
	if err := xml.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	if s.Tests != 6 || s.Failures != 2 || len(s.Cases) != 6 || s.Cases[1].ClassName != "grade.session-16.v1" {
		t.Fatalf("%d tests, %d failures, %d cases, classname %q", s.Tests, s.Failures, len(s.Cases), s.Cases[1].ClassName)
	}
	if f := s.Cases[2].Failure; f == nil || !strings.HasPrefix(f.Message, "not exercised: ") {
		t.Errorf("the check not exercised: %+v", f)
	}
	if bytes.Contains(b, []byte("worker-1")) {
		t.Error("the worker's output is in the JUnit file")
	}
}

// TestOwnJSON: outcomes, variations, points.
func TestOwnJSON(t *testing.T) {
	b, _ := Write("json", fixture(t))
	var o ownResults
	if err := json.Unmarshal(b, &o); err != nil {
		t.Fatal(err)
	}
	if o.Score != 4 || o.MaxScore != 6 || o.Passed || o.Tests[2].Outcome != "not_exercised" || o.Tests[1].Outcome != "broken" ||
		o.Tests[3].Variation != "v2" || o.Tests[0].Score != 1 {
		t.Errorf("%+v", o)
	}
}
