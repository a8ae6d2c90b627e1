package wassal

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"outboxlab/core/changelog"
	"outboxlab/core/child"
	"outboxlab/core/clock"
	"outboxlab/core/dialect"
	"outboxlab/core/outbox"
	"outboxlab/core/provider"
	"outboxlab/core/worker"
	"outboxlab/scenarios"
)

// What the Days 13-17 scenarios share: how payment requests arrive, how a
// flag names payment keys, and how a timeline line reads.

// requestGap is the scenario time between two payment requests.
const requestGap = 100 * time.Millisecond

// requestTime is when payment request i (1-based) arrives.
func requestTime(i int) time.Time { return clock.Start.Add(time.Duration(i-1) * requestGap) }

// later returns the later of two times.
func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// maxPayments is the most payments a day seeds: keys run PAY-001..PAY-500.
// Every payment is at least one transaction and one provider call in each of
// the two designs a report runs, so this bounds the work of every day.
const maxPayments = 500

// The fewest payments a day seeds is the highest key its defaults name (the
// declined PAY-005 on every day; Day 13 also crashes after PAY-006): any
// fewer and a default flag would name a payment that does not exist.
const (
	minPayments   = 5
	minPayments13 = 6
)

// none is how a key flag says "no key".
const none = scenarios.NoKey

// keysFlag checks a list of payment keys given to flag: each a seeded
// payment, as scenarios.CheckKey has it (no spaces around it), none twice.
// "none" (alone) means no keys.
func keysFlag(flag string, keys []string, payments int) ([]string, error) {
	if len(keys) == 1 && keys[0] == none {
		return nil, nil
	}
	keys = slices.Clone(keys)
	seeded := PaymentKeys(payments)
	for _, k := range keys {
		if _, err := scenarios.CheckKey(flag, k, seeded...); err != nil {
			return nil, err
		}
	}
	seen := map[string]bool{}
	for _, k := range keys {
		if !slices.Contains(seeded, k) {
			return nil, fmt.Errorf("--%s %q is not a seeded payment (PAY-001..%s)", flag, k, seeded[len(seeded)-1])
		}
		if seen[k] {
			return nil, fmt.Errorf("--%s %q is listed twice", flag, k)
		}
		seen[k] = true
	}
	return keys, nil
}

// poisonFlags checks the --poison-key and --declined-key of the days that
// poison payments (16 and 17): seeded payments, and the declined key a
// healthy one.
func poisonFlags(poison []string, declined string, payments int) ([]string, string, error) {
	poison, err := keysFlag("poison-key", poison, payments)
	if err != nil {
		return nil, "", err
	}
	if declined, err = keyFlag("declined-key", declined, payments); err != nil {
		return nil, "", err
	}
	if declined != "" && slices.Contains(poison, declined) {
		return nil, "", fmt.Errorf("--declined-key %q is also a poison key; a declined payment is a healthy one", declined)
	}
	return poison, declined, nil
}

// keyFlag checks one payment key given to flag (scenarios.CheckKey);
// "none" gives "".
func keyFlag(flag, key string, payments int) (string, error) {
	key, err := scenarios.CheckKey(flag, key, PaymentKeys(payments)...)
	if err != nil || key == "" {
		return "", err
	}
	keys, err := keysFlag(flag, []string{key}, payments)
	if err != nil {
		return "", err
	}
	return keys[0], nil
}

// keyIndex is the 1-based index of a seeded key (PAY-004 → 4), 0 for "".
func keyIndex(key string) int {
	var i int
	fmt.Sscanf(key, "PAY-%d", &i)
	return i
}

// keysText lists keys for a report line, or says there are none.
func keysText(keys []string) string {
	if len(keys) == 0 {
		return none
	}
	return strings.Join(keys, ", ")
}

// countWith prints a count with the keys behind it: "2 (PAY-003, PAY-005)".
func countWith(keys []string) string {
	if len(keys) == 0 {
		return "0"
	}
	return fmt.Sprintf("%d (%s)", len(keys), strings.Join(keys, ", "))
}

// eventLine is one timeline line that is not a worker event, in the same
// columns as TimelineLine: time, key (or —), what happened.
func eventLine(at time.Time, key, text string) string {
	if key == "" {
		key = "—"
	}
	return fmt.Sprintf("%s  %-8s %s", clock.Stamp(at), key, text)
}

// outputLines splits what a child process printed into timeline lines.
func outputLines(out string) []string {
	out = strings.TrimRight(out, "\n")
	if out == "" {
		return nil
	}
	return strings.Split(out, "\n")
}

// statusChecker is what a handler needs of the provider: the provider itself
// in the parent, or a provider.Client in a child process.
type statusChecker interface {
	CheckStatus(ctx context.Context, key string, at time.Time) (provider.Answer, error)
}

// resolution turns a provider answer into the payment's state and a timeline phrase.
func resolution(a provider.Answer) (outbox.PaymentStatus, string) {
	if a.Outcome == provider.Declined {
		return outbox.Failed, answerText(a) + " → payment Failed"
	}
	return outbox.Paid, answerText(a) + " → payment Paid"
}

// answerText says what the provider answered: "Paid (PRV-TX-0001)" or "Declined".
func answerText(a provider.Answer) string {
	if a.TransactionID != "" {
		return fmt.Sprintf("%s (%s)", a.Outcome, a.TransactionID)
	}
	return string(a.Outcome)
}

// pendingKeys lists the payments still PendingConfirmation.
func pendingKeys(pays []outbox.Payment) []string {
	var keys []string
	for _, p := range pays {
		if p.Status == outbox.PendingConfirmation {
			keys = append(keys, p.Key)
		}
	}
	return keys
}

// paidFailed counts Paid and Failed payments.
func paidFailed(pays []outbox.Payment) (paid, failed int) {
	for _, p := range pays {
		switch p.Status {
		case outbox.Paid:
			paid++
		case outbox.Failed:
			failed++
		}
	}
	return paid, failed
}

// callsAfter counts the ledger's calls of op for key made at or after t.
func callsAfter(calls []provider.Call, op, key string, t time.Time) int {
	n := 0
	for _, c := range calls {
		if c.Op == op && c.Key == key && !c.At.Before(t) {
			n++
		}
	}
	return n
}

// maxCallsPerKey returns the most calls of op any one key received.
func maxCallsPerKey(calls []provider.Call, op string) int {
	per, most := map[string]int{}, 0
	for _, c := range calls {
		if c.Op == op {
			per[c.Key]++
			most = max(most, per[c.Key])
		}
	}
	return most
}

// confirmVia is ConfirmHandler for any status checker: it asks the provider
// what became of the payment (never charging it) and records the answer in
// the transaction that completes the message.
func confirmVia(p statusChecker) worker.Handler {
	return worker.HandlerFunc(func(ctx context.Context, c outbox.Claim, now time.Time) (worker.Outcome, error) {
		a, err := p.CheckStatus(ctx, c.Key, now)
		if err != nil {
			return worker.Outcome{}, err
		}
		status, detail := outbox.Paid, fmt.Sprintf("status check → Paid (%s)", a.TransactionID)
		if a.Outcome == provider.Declined {
			status, detail = outbox.Failed, "status check → Declined → payment Failed"
		}
		return worker.Outcome{Detail: detail, Apply: func(ctx context.Context, tx *sql.Tx) error {
			_, err := outbox.ResolvePaymentTx(ctx, tx, c.Key, status, a.TransactionID, now)
			return err
		}}, nil
	})
}

// openChild is how each Day's child process starts: it parses the child's
// flags, reads the scenario times its parent passed in the flags named by
// times, then opens the parent's database at db with the design of the Day
// its parent names in -day (Day; the full schema without it). When it
// cannot, it has said why on stderr (for bad flags, the flag package has)
// and ok is false: the child exits childFailed.
//
// The context it returns records the child's events in the run's change
// log when the parent asked for it (changelog.ForChild): the child calls
// changelog.Event after each event, as a drive in the lab's process does.
func openChild(ctx context.Context, fs *flag.FlagSet, args []string, db *dialect.Database, times ...*string) (context.Context, *outbox.Store, []time.Time, bool) {
	fs.SetOutput(os.Stderr)
	day := fs.Int("day", 0, "the course Day whose store the parent opened (13 to 17; 0: the full schema)")
	logged := changelog.BindChild(fs)
	if err := fs.Parse(args); err != nil {
		return ctx, nil, nil, false
	}
	at := make([]time.Time, len(times))
	for i, iso := range times {
		var err error
		if at[i], err = time.Parse(clock.ISOLayout, *iso); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return ctx, nil, nil, false
		}
	}
	design := outbox.Full
	if *day != 0 {
		if *day < 13 || *day > 17 {
			fmt.Fprintf(os.Stderr, "-day %d: the Days with a store are 13 to 17\n", *day)
			return ctx, nil, nil, false
		}
		design = Day(*day)
	}
	store, err := design.OpenExisting(ctx, *db)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return ctx, nil, nil, false
	}
	if ctx, err = logged.Open(ctx, *db, child.Die); err != nil {
		store.Close()
		fmt.Fprintln(os.Stderr, err)
		return ctx, nil, nil, false
	}
	return ctx, store, at, true
}

// childFailed is the exit code of a child process that could not do its work.
const childFailed = 3

// failChild says on stderr why a child could not go on and returns childFailed.
func failChild(err error) int {
	fmt.Fprintln(os.Stderr, err)
	return childFailed
}
