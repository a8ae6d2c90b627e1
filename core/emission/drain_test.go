package emission

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"outboxlab/core/backoff"
	"outboxlab/core/clock"
)

// drainAll seeds one entry per script on a fresh store and drains them to the end.
func drainAll(t *testing.T, mode Mode, opts Options, maxRetryCount int, scripts map[string][]Step) (*Store, *Scripted, *Alerts, []Event) {
	t.Helper()
	s := newStore(t)
	em := NewScripted()
	for i, key := range slices.Sorted(maps.Keys(scripts)) {
		insert(t, s, NewEntry{Key: key, MaxRetryCount: maxRetryCount, CreatedAt: clock.Start.Add(time.Duration(i) * time.Millisecond)})
		em.Script(key, scripts[key]...)
	}
	clk := clock.NewAt(clock.Start.Add(time.Second))
	d, err := NewDrain(Config{Options: opts, Backoff: backoff.Backoff{Base: time.Second, Cap: time.Minute}, Mode: mode}, s, em, clk)
	if err != nil {
		t.Fatal(err)
	}
	alerts := NewAlerts(opts)
	d.Observe(alerts.Observe)
	events, _, err := d.Run(context.Background(), 500, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s, em, alerts, events
}

func TestBothModesApplyTheSameThreshold(t *testing.T) {
	scripts := map[string][]Step{
		"GOV-001": {Deliver()},
		"GOV-002": {Fail("provider.unavailable", "503")},
		"GOV-003": {Throw("connection reset")},
		"GOV-004": {Crash("nil map"), Crash("nil map"), Deliver()},
		"GOV-005": {Fail("x", ""), Fail("x", ""), Fail("x", ""), Fail("x", ""), Deliver()},
		"GOV-006": {Reject("provider.payload_rejected", "schema")},
		"GOV-007": {Defer(time.Second), Defer(time.Second), Defer(time.Second), Defer(time.Second), Defer(time.Second), Defer(time.Second), Deliver()},
	}
	want := map[string]string{
		"GOV-001": "Delivered 0 calls 1",
		"GOV-002": "DeadLettered 5 calls 5 outbox.max_retry_attempts_exceeded",
		"GOV-003": "DeadLettered 5 calls 5 outbox.max_retry_attempts_exceeded",
		"GOV-004": "Delivered 2 calls 3",
		"GOV-005": "Delivered 4 calls 5",
		"GOV-006": "DeadLettered 0 calls 1 provider.payload_rejected",
		"GOV-007": "Delivered 0 calls 7",
	}
	for _, mode := range []Mode{StoreMode, ClaimMode} {
		t.Run(string(mode), func(t *testing.T) {
			s, em, _, _ := drainAll(t, mode, DefaultOptions(), 0, scripts)
			entries, _ := s.Entries(context.Background())
			for _, e := range entries {
				got := fmt.Sprintf("%s %d calls %d", e.Status, e.RetryCount, em.CallsFor(e.Key))
				if e.ReasonCode != "" {
					got += " " + e.ReasonCode
				}
				if got != want[e.Key] {
					t.Errorf("%s: %s, want %s", e.Key, got, want[e.Key])
				}
				if e.Status.Terminal() && (!e.NextRetryAt.IsZero() || e.ClaimOwner != "") {
					t.Errorf("%s is %s but keeps next retry %v / owner %q", e.Key, e.Status, e.NextRetryAt, e.ClaimOwner)
				}
			}
		})
	}
}

func TestMaxRetryAttemptsOverridesTheLegacyColumn(t *testing.T) {
	opts := DefaultOptions()
	opts.MaxRetryAttempts = 8
	for _, legacy := range []int{0, 2, 12} {
		s, em, _, _ := drainAll(t, ClaimMode, opts, legacy, map[string][]Step{"GOV-001": {Fail("x", "")}})
		e, _ := s.EntryByKey(context.Background(), "GOV-001")
		if e.Status != DeadLettered || e.RetryCount != 8 || em.CallsFor("GOV-001") != 8 {
			t.Errorf("MaxRetryCount %d: %s after %d failures and %d calls, want DeadLettered at 8", e.MaxRetryCount, e.Status, e.RetryCount, em.CallsFor("GOV-001"))
		}
	}
}

func TestDeadLetterOffKeepsRetrying(t *testing.T) {
	opts := DefaultOptions()
	opts.DeadLetterOnMaxRetryAttempts = false
	s := newStore(t)
	em := NewScripted()
	insert(t, s, NewEntry{Key: "GOV-001", CreatedAt: clock.Start})
	em.Script("GOV-001", Fail("x", ""))
	d, err := NewDrain(Config{Options: opts, Backoff: backoff.Backoff{Base: time.Second}, Mode: ClaimMode}, s, em, clock.New())
	if err != nil {
		t.Fatal(err)
	}
	_, stopped, err := d.Run(context.Background(), 100, func([]Event) bool { return em.CallsFor("GOV-001") >= 9 })
	if err != nil || !stopped {
		t.Fatalf("Run() stopped=%v err=%v, want the cap to stop it", stopped, err)
	}
	e, _ := s.EntryByKey(context.Background(), "GOV-001")
	if e.Status != Failed || e.RetryCount != 9 || e.NextRetryAt.IsZero() {
		t.Errorf("after 9 failures: %s RetryCount %d next %v; want Failed 9, still scheduled", e.Status, e.RetryCount, e.NextRetryAt)
	}
}

func TestNewDrainValidatesOptions(t *testing.T) {
	opts := DefaultOptions()
	opts.DeadLetterReasonMessage = ""
	_, err := NewDrain(Config{Options: opts}, nil, nil, clock.New())
	var oe *OptionError
	if !errors.As(err, &oe) || oe.Option != "DeadLetterReasonMessage" {
		t.Fatalf("NewDrain() = %v, want an OptionError naming DeadLetterReasonMessage", err)
	}
}

func TestAlertsCountDeadLettersAndWarnBeforeTheThreshold(t *testing.T) {
	scripts := map[string][]Step{
		"GOV-001": {Fail("x", "")},
		"GOV-002": {Fail("x", ""), Fail("x", ""), Fail("x", ""), Fail("x", ""), Deliver()},
		"GOV-003": {Reject("provider.payload_rejected", "")},
		"GOV-004": {Fail("x", "")},
	}
	_, _, alerts, _ := drainAll(t, ClaimMode, DefaultOptions(), 0, scripts)
	var names []string
	for _, l := range alerts.Lines() {
		names = append(names, l.Name+":"+strings.Fields(l.Text)[2])
		if strings.Contains(l.Text, `"x":1`) {
			t.Errorf("an alert carries the payload: %s", l.Text)
		}
	}
	want := []string{
		"governance_outbox.dead_lettered:key=GOV-003",
		"governance_outbox.retry_threshold_near:key=GOV-001",
		"governance_outbox.retry_threshold_near:key=GOV-002",
		"governance_outbox.retry_threshold_near:key=GOV-004",
		"governance_outbox.dead_lettered:key=GOV-001",
		"governance_outbox.dead_lettered:key=GOV-004",
		"governance_outbox.dead_letter_repeated:provider=acme",
	}
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Errorf("alert lines\n%s\nwant\n%s", strings.Join(names, "\n"), strings.Join(want, "\n"))
	}
	if alerts.DeadLettered() != 3 {
		t.Errorf("dead-letter counter %d, want 3", alerts.DeadLettered())
	}
	byReason := alerts.ByReason()
	if len(byReason) != 2 || byReason[0].Count != 2 || byReason[1].ReasonCode != "provider.payload_rejected" {
		t.Errorf("ByReason() = %+v", byReason)
	}
}
