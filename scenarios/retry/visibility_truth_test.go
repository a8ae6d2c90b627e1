package retry

import (
	"fmt"
	"testing"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/outbox"
	"outboxlab/core/report"
	"outboxlab/scenarios/scenariotest"
)

// A hand-made run: worker-1 takes NTF-001 and sleeps through its backoff
// holding it, past its 30 s lease; worker-2 claims it meanwhile and sends it;
// worker-3 sends NTF-002 once.
func handMadeRun() ([]outbox.AuditEntry, []outbox.Message, []send) {
	at := func(ms int) time.Time { return clock.Start.Add(time.Duration(ms) * time.Millisecond) }
	delivered := func(ms int, who string, id int64, detail string) outbox.AuditEntry {
		return outbox.AuditEntry{At: clock.ISO(at(ms)), Actor: who, Action: "delivered", MessageID: id, Detail: detail}
	}
	audit := []outbox.AuditEntry{
		delivered(0, "worker-1", 1, "NTF-001 delivery 1"),
		delivered(0, "worker-3", 2, "NTF-002 delivery 1"),
		delivered(30001, "worker-2", 1, "NTF-001 delivery 2"),
	}
	msgs := []outbox.Message{{ID: 1, Key: "NTF-001"}, {ID: 2, Key: "NTF-002"}}
	ledger := []send{
		{seq: 1, at: at(0), done: at(1000), consumer: "worker-1", key: "NTF-001", attempt: 1, ok: false},
		{seq: 2, at: at(0), done: at(1000), consumer: "worker-3", key: "NTF-002", attempt: 1, ok: true},
		{seq: 3, at: at(30001), done: at(31001), consumer: "worker-2", key: "NTF-001", attempt: 2, ok: true},
		{seq: 4, at: at(40000), done: at(41000), consumer: "worker-1", key: "NTF-001", attempt: 2, ok: true},
	}
	return audit, msgs, ledger
}

func holdSummary(f holdMetrics, orphans, holds int) string {
	return fmt.Sprintf("holds %d overlaps %d concurrent %d superseded %d multi-send %d asleep %v outlived %d put-back %d other-work %d orphans %d",
		holds, f.overlaps, f.concurrent, f.superseded, f.multiSend, f.heldSleep, f.outlived, f.putBacks, f.otherWork, orphans)
}

func TestHoldsReadFromTheAuditLogAndTheLedger(t *testing.T) {
	o := scenariotest.Bind(t, heldBackoff).(*visibilityOptions)
	keys := map[int64]string{1: "NTF-001", 2: "NTF-002"}
	audit, msgs, ledger := handMadeRun()
	holds, orphans := o.holdsFromTruth(audit, msgs, ledger)
	got := holdSummary(o.holdMetrics(holds, audit, keys), orphans, len(holds))
	want := "holds 3 overlaps 1 concurrent 1 superseded 1 multi-send 1 asleep 39s outlived 1 put-back 0 other-work 0 orphans 0"
	if got != want {
		t.Errorf("hand-made run\n got %s\nwant %s", got, want)
	}

	// worker-3 sends NTF-001, which it never took: work on a message it does not hold.
	stray := send{seq: 5, at: clock.Start.Add(2 * time.Second), done: clock.Start.Add(3 * time.Second),
		consumer: "worker-3", key: "NTF-001", attempt: 1, ok: false}
	holds, orphans = o.holdsFromTruth(audit, msgs, append(ledger[:2:2], append([]send{stray}, ledger[2:]...)...))
	if got := holdSummary(o.holdMetrics(holds, audit, keys), orphans, len(holds)); got != want[:len(want)-1]+"1" {
		t.Errorf("with a stray send\n got %s\nwant orphans 1", got)
	}
}

// A failed send whose message is not dead-lettered puts it back; a send by the
// same consumer before its backoff ends is work done meanwhile. A dead letter
// in the audit log at the hold's end is no put-back.
func TestPutBacksAndOtherWork(t *testing.T) {
	o := scenariotest.Bind(t, queueBackoff).(*visibilityOptions) // base backoff 5 s
	at := func(ms int) time.Time { return clock.Start.Add(time.Duration(ms) * time.Millisecond) }
	audit := []outbox.AuditEntry{
		{At: clock.ISO(at(0)), Actor: "worker-1", Action: "delivered", MessageID: 1, Detail: "NTF-001 delivery 1"},
		{At: clock.ISO(at(1000)), Actor: "worker-1", Action: "delivered", MessageID: 2, Detail: "NTF-002 delivery 1"},
	}
	msgs := []outbox.Message{{ID: 1, Key: "NTF-001"}, {ID: 2, Key: "NTF-002"}}
	ledger := []send{
		{seq: 1, at: at(0), done: at(1000), consumer: "worker-1", key: "NTF-001", attempt: 1},
		{seq: 2, at: at(1000), done: at(2000), consumer: "worker-1", key: "NTF-002", attempt: 1, ok: true},
	}
	keys := map[int64]string{1: "NTF-001", 2: "NTF-002"}
	holds, orphans := o.holdsFromTruth(audit, msgs, ledger)
	if got, want := holdSummary(o.holdMetrics(holds, audit, keys), orphans, len(holds)),
		"holds 2 overlaps 0 concurrent 0 superseded 0 multi-send 0 asleep 0s outlived 0 put-back 1 other-work 1 orphans 0"; got != want {
		t.Errorf("put back\n got %s\nwant %s", got, want)
	}
	dead := append(audit, outbox.AuditEntry{At: clock.ISO(at(1000)), Actor: "worker-1", Action: "dead-lettered", MessageID: 1})
	holds, orphans = o.holdsFromTruth(dead, msgs, ledger)
	if got, want := holdSummary(o.holdMetrics(holds, dead, keys), orphans, len(holds)),
		"holds 2 overlaps 0 concurrent 0 superseded 0 multi-send 0 asleep 0s outlived 0 put-back 0 other-work 0 orphans 0"; got != want {
		t.Errorf("dead-lettered\n got %s\nwant %s", got, want)
	}
}

// The checks read those metrics: the hand-made run reproduces the BEFORE
// failure mode, and fails every AFTER check it touches; a stray send fails
// the BEFORE check that a sleeping holder does no other work.
func TestVisibilityChecksReadTheTruth(t *testing.T) {
	o := scenariotest.Bind(t, heldBackoff).(*visibilityOptions)
	audit, msgs, ledger := handMadeRun()
	gw := newGateway(sendTime, o.Hang)
	gw.ledger = ledger
	run := &pairRun{held: true, gw: gw, msgs: msgs, audit: audit, refused: 1}
	r := report.New(heldBackoff, report.Before)
	run.read = o.metrics(run)
	o.heldChecks(r, run)
	for _, name := range []string{"a held backoff outlives the visibility timeout", "a second consumer runs the same job concurrently",
		"a notification goes out twice", "the owner check refuses the first holder only after its send",
		"a consumer asleep holding a message does no other work"} {
		if c := scenariotest.CheckNamed(t, r, name); !c.Passed {
			t.Errorf("%q not reproduced on the hand-made run: %s", name, c.Detail)
		}
	}
	r = report.New(queueBackoff, report.After)
	o.queueChecks(r, run)
	for _, name := range []string{"no two consumers ever hold one message", "no notification goes out twice",
		"no consumer holds a message through a backoff"} {
		if c := scenariotest.CheckNamed(t, r, name); c.Passed {
			t.Errorf("%q passed on a run where worker-1 held NTF-001 through its backoff: %s", name, c.Detail)
		}
	}

	stray := send{seq: 5, at: clock.Start.Add(2 * time.Second), done: clock.Start.Add(3 * time.Second),
		consumer: "worker-3", key: "NTF-001", attempt: 1}
	gw.ledger = append(ledger[:2:2], append([]send{stray}, ledger[2:]...)...)
	r = report.New(heldBackoff, report.Before)
	run.read = o.metrics(run)
	o.heldChecks(r, run)
	if c := scenariotest.CheckNamed(t, r, "a consumer asleep holding a message does no other work"); c.Passed {
		t.Errorf("a send of a message its consumer did not hold went unnoticed: %s", c.Detail)
	}
}

// Validate refuses, naming the flags, a run that could go round long enough
// to exceed the lab's budget of sends, and accepts the one that settles.
func TestVisibilityValidateBoundsTheWork(t *testing.T) {
	testValidate(t, queueBackoff, []validateCase{
		{[]string{"--visibility-timeout", "1ms", "--time-budget", "24h"},
			"--visibility-timeout 1 ms is shorter than a send (1 s), so every message can go round until the 4320 min demo cap"},
		{[]string{"--visibility-timeout", "20s", "--consumers", "20", "--time-budget", "24h"},
			"--visibility-timeout 20 s is shorter than --hang 25 s, so the hanging message goes round"},
		{[]string{"--visibility-timeout", "1ms", "--consumers", "5"}, "up to 6010 sends with 5 consumers, more than the 6000"},
		{[]string{"--visibility-timeout", "1ms"}, ""},
		{[]string{"--visibility-timeout", "30s", "--consumers", "20", "--time-budget", "24h", "--max-attempts", "50"}, ""},
		{[]string{"--consumers", "20", "--healthy", "50", "--flaky-failures", "20", "--visibility-timeout", "1h", "--base-backoff", "1m",
			"--max-backoff", "1h", "--max-attempts", "50", "--time-budget", "24h", "--hang", "1h"}, ""},
	})
}

// A failed check comes with what the flags did.
func TestVisibilityPairSaysWhyItsChecksFailed(t *testing.T) {
	testWhy(t, []whyCase{
		{queueBackoff, []string{"--backoff-on-queue=false"}, []string{"  WHY   --backoff-on-queue=false switches the AFTER design off"}},
		{queueBackoff, []string{"--visibility-timeout", "20s"},
			[]string{"  WHY   the --visibility-timeout of 20 s is shorter than a hanging send (--hang 25 s): the lease runs\n"}},
		{heldBackoff, []string{"--visibility-timeout", "10m"},
			[]string{"  WHY   the --visibility-timeout of 10 min outlasts every held backoff and the send after it " +
				"(the longest held wait took 40 s): no lease ran out"}},
		// The overlap at 2 min comes from a hanging send, not from a backoff:
		// the WHY names it, with the times the overlap table shows.
		{heldBackoff, []string{"--visibility-timeout", "2m"},
			[]string{"  WHY   no held backoff ran past the lease; a send after one did: worker-3's send of NTF-003 " +
				"started at 09:01:50.000Z and hung 25 s to 09:02:15.000Z, past the lease's end at " +
				"09:02:00.000Z; worker-1 claimed NTF-003 at 09:02:00.001Z; the sends taken over failed, so nothing was sent twice"}},
		// One consumer: the hanging send still runs past the lease, and nobody takes it over.
		{heldBackoff, []string{"--visibility-timeout", "2m", "--consumers", "1"},
			[]string{"  WHY   no held backoff ran past the lease; a send after one did: worker-1's send of NTF-003",
				"no other consumer claimed it meanwhile"}},
	})
	testNotExercised(t, []idleCase{
		{queueBackoff, []string{"--max-attempts", "1"}, []string{checkQueueOtherWork},
			"no message was put back on the queue: with --max-attempts 1"},
		{queueBackoff, []string{"--time-budget", "5m"}, []string{checkQueueTimeBudget}, "no message ran out of its 5 min time budget"},
		{heldBackoff, []string{"--max-attempts", "1"}, []string{checkHeldOutlives, checkHeldConcurrent, checkHeldTwice,
			checkHeldRefused, checkHeldAsleep, checkHeldRule}, "no consumer slept holding a message: with --max-attempts 1"},
		{heldBackoff, []string{"--consumers", "1"}, []string{checkHeldConcurrent, checkHeldTwice, checkHeldRefused, checkHeldRule},
			"one consumer: no second consumer can take a message over"},
	})
}
