package cli

import (
	"bytes"
	"encoding/json"
	"testing"

	"outboxlab/core/report"
	"outboxlab/scenarios"
)

// all runs scenarios side by side (allParallel at a time) but reports them in
// catalogue order, each with its own result: the same as one at a time.
func TestAllRunsSideBySideInCatalogueOrder(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := Main([]string{"all", "--family", "retry", "--no-report", "--json"}, &stdout, &stderr); code != ExitOK {
		t.Fatalf("exit %d; stderr %s", code, stderr.String())
	}
	var got []report.Result
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, s := range scenarios.All() {
		if s.Family == "retry" {
			want = append(want, s.Name)
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%d results, want %d", len(got), len(want))
	}
	for i, r := range got {
		if r.Scenario != want[i] || !r.Passed || len(r.Checks) == 0 {
			t.Errorf("result %d: %s passed=%v with %d checks; want %s, passed", i, r.Scenario, r.Passed, len(r.Checks), want[i])
		}
	}
	// The same run alone prints the same result.
	for _, i := range []int{0, len(got) - 1} {
		var one, errb bytes.Buffer
		if code := Main([]string{want[i], "--no-report", "--json"}, &one, &errb); code != ExitOK {
			t.Fatalf("%s: exit %d; stderr %s", want[i], code, errb.String())
		}
		var alone report.Result
		if err := json.Unmarshal(one.Bytes(), &alone); err != nil {
			t.Fatal(err)
		}
		a, _ := json.Marshal(alone.Metrics)
		b, _ := json.Marshal(got[i].Metrics)
		if string(a) != string(b) || alone.Verdict != got[i].Verdict {
			t.Errorf("%s alone: metrics %s verdict %q; beside the others: %s, %q", want[i], a, alone.Verdict, b, got[i].Verdict)
		}
	}
}
