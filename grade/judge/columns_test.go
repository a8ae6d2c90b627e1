package judge

import (
	"strings"
	"testing"
	"time"

	"outboxlab/core/clock"
	"outboxlab/grade/changelog"
	"outboxlab/grade/sched"
)

// msg is a message row as the change log writes it.
func msg(id, status, next, lease string) map[string]string {
	return map[string]string{"id": id, "status": status, "createdatutc": clock.ISO(clock.Start),
		"nextattemptutc": next, "lockeduntilutc": lease, "claimtoken": "0", "attemptcount": "0"}
}

// update is an OutboxMessages or Payments update in turn.
func update(table string, id int64, turn int, old, new map[string]string) changelog.Change {
	nulls := func(m map[string]string) map[string]bool {
		n := map[string]bool{}
		for k, v := range m {
			n[k] = v == ""
		}
		return n
	}
	return changelog.Change{Table: table, RowID: id, Op: "UPDATE", Old: old, New: new,
		OldNull: nulls(old), NewNull: nulls(new), Turn: turn}
}

// judged runs one check on turns (each a worker's call at a time) and changes.
func judged(turns []sched.Turn, changes []changelog.Change, check func(*Judge)) (bool, string) {
	j := &Judge{Run: &sched.Run{Turns: turns, Changes: changes}}
	check(j)
	c := j.Checks()[0]
	return c.Passed, c.Detail
}

// TestClaimOrder: a claim that leaves an older claimable message behind
// fails, one oldest first holds, and a sleep while a gate is open (now ==
// NextAttemptUtc: open, <=) fails.
func TestClaimOrder(t *testing.T) {
	t0 := clock.Start
	turns := []sched.Turn{{Worker: "worker-1", Inc: 1, At: t0, Call: "hello"},
		{Worker: "worker-1", Inc: 1, At: t0.Add(time.Second), Call: "sleep"}}
	claim := func(id string) changelog.Change {
		n := msg(id, "Processing", "", clock.ISO(t0.Add(time.Minute)))
		n["claimtoken"], n["lockedby"] = "1", "worker-1"
		return update("OutboxMessages", int64(id[0]-'0'), 0, msg(id, "Pending", "", ""), n)
	}
	if ok, detail := judged(turns, []changelog.Change{claim("2"), update("OutboxMessages", 1, 0,
		msg("1", "Pending", "", ""), msg("1", "Pending", "", ""))}, (*Judge).ClaimOrder); ok ||
		!strings.Contains(detail, "leaving the older message 1 claimable") {
		t.Errorf("newest first: passed %v, %q", ok, detail)
	}
	gate := clock.ISO(t0) // open at t0 already: the worker that sleeps at t0 missed it
	if ok, detail := judged(turns, []changelog.Change{claim("1"),
		update("OutboxMessages", 2, 0, msg("2", "Pending", "", ""), msg("2", "Pending", gate, ""))},
		(*Judge).ClaimOrder); ok || !strings.Contains(detail, "slept at 09:00:00.000Z while message 2 was claimable") {
		t.Errorf("sleep with an open gate: passed %v, %q", ok, detail)
	}
	later := clock.ISO(t0.Add(time.Millisecond))
	if ok, detail := judged(turns, []changelog.Change{claim("1"),
		update("OutboxMessages", 2, 0, msg("2", "Pending", "", ""), msg("2", "Pending", later, ""))},
		(*Judge).ClaimOrder); !ok {
		t.Errorf("oldest first, sleep with the gate closed: failed %q", detail)
	}
}

// TestColumnsWritten: a payment updated or a message Processed without its
// time column fails, even when the old value was a valid time.
func TestColumnsWritten(t *testing.T) {
	t1 := clock.Start.Add(201 * time.Millisecond)
	turns := []sched.Turn{{Worker: "worker-1", Inc: 1, At: t1}}
	start := clock.ISO(clock.Start)
	pay := func(status, updated string) map[string]string {
		return map[string]string{"status": status, "updatedatutc": updated, "providertransactionid": ""}
	}
	for _, c := range []struct {
		name   string
		change changelog.Change
		want   string // "" when it holds
	}{
		{"payment without UpdatedAtUtc", update("Payments", 2, 0, pay("PendingConfirmation", start), pay("Paid", start)),
			"Payments 2 updated to Paid at 09:00:00.201Z with UpdatedAtUtc left at 2026-01-16T09:00:00.000Z"},
		{"payment with it", update("Payments", 2, 0, pay("PendingConfirmation", start), pay("Paid", clock.ISO(t1))), ""},
		{"Processed without ProcessedAtUtc", update("OutboxMessages", 3, 0,
			map[string]string{"status": "Processing", "processedatutc": ""},
			map[string]string{"status": "Processed", "processedatutc": ""}), "OutboxMessages 3 became Processed"},
	} {
		ok, detail := judged(turns, []changelog.Change{c.change}, (*Judge).ColumnsWritten)
		if ok != (c.want == "") || !strings.Contains(detail, c.want) {
			t.Errorf("%s: passed %v, %q; want %q", c.name, ok, detail, c.want)
		}
	}
}
