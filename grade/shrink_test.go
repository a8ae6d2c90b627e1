package grade

import (
	"reflect"
	"strings"
	"testing"
)

// TestCaseRoundTrip: a case is the JSON of the fields that differ from the
// Day's defaults; parsed, it is that variation again, and parsing never
// touches the Day's own defaults (a slice shared with them would).
func TestCaseRoundTrip(t *testing.T) {
	d := Lookup("session-16")
	before := fields(d.Defaults)
	v, err := ParseCase(d, `{"Payments":1,"Poison":["PAY-001"],"Declined":"","MaxAttempts":2}`)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fields(d.Defaults), before) {
		t.Fatalf("parsing a case changed the Day's defaults: %v, was %v", fields(d.Defaults), before)
	}
	if got, want := caseJSON(d, v), `{"Declined":"","MaxAttempts":2,"Payments":1,"Poison":["PAY-001"]}`; got != want {
		t.Errorf("caseJSON = %s, want %s", got, want)
	}
	if caseJSON(d, d.Defaults) != "{}" {
		t.Errorf("the defaults' case is %s, want {}", caseJSON(d, d.Defaults))
	}
	for _, bad := range []string{`{"Bogus":1}`, `{"Payments":0}`, `{"Payments":2}{}`, `{"Payments":2,"Poison":["PAY-003"]}`, `[1]`} {
		if _, err := ParseCase(d, bad); err == nil || !strings.Contains(err.Error(), "--case") {
			t.Errorf("ParseCase(%s) = %v, want an error naming --case", bad, err)
		}
	}
}

// TestSmallerCandidates: the search's first candidates of the course's Day
// 16 run are the keys of each kind renumbered from PAY-001 with no other
// payment, then with one healthy payment; every candidate is smaller in
// some parameter and names no key past its payments.
func TestSmallerCandidates(t *testing.T) {
	d := Lookup("session-16")
	cands := smaller(d, d.Defaults)
	if len(cands) < 4 {
		t.Fatalf("%d candidates", len(cands))
	}
	def := d.Defaults.Common()
	first := caseJSON(d, cands[0])
	if !strings.Contains(first, `"Payments":2`) || !strings.Contains(first, `"Poison":["PAY-001"]`) ||
		!strings.Contains(first, `"Declined":"PAY-002"`) {
		t.Errorf("first candidate %s: want PAY-003 and PAY-005 as PAY-001 and PAY-002 of 2 payments", first)
	}
	if c := cands[1].Common(); c.Payments != 3 {
		t.Errorf("second candidate has %d payments, want 3 (one healthy)", c.Payments)
	}
	for _, c := range cands {
		j := caseJSON(d, c)
		if c.Common().Payments > def.Payments || c.Common().MaxAttempts > def.MaxAttempts || j == "{}" {
			t.Errorf("candidate %s is no smaller", j)
		}
	}
}
