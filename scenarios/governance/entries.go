package governance

import (
	"context"
	"fmt"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/dialect"
	"outboxlab/core/emission"
)

// fakeSecret and protectedPrompt are planted in every payload. They are what
// the seed says alerts must never carry; the alert scenario checks that
// neither reaches the terminal, the report or an alert line.
const (
	fakeSecret      = "lab-fake-access-token-3f9a71c0"
	protectedPrompt = "PROTECTED: applicant disclosed a medical condition"
)

// eventType is the kind of every seeded entry.
const eventType = "DecisionReceiptRecorded"

// entrySpec is one entry to seed and the emitter script it gets.
type entrySpec struct {
	Key      string
	Role     string // what the entry exercises, for the report
	Provider string
	Region   string
	Tenant   string
	Workload string
	Steps    []emission.Step
	// MaxRetryCount is the legacy column; 0 leaves the schema default (5).
	MaxRetryCount int
	// PriorFailures is RetryCount as already persisted before this run.
	PriorFailures int
}

// entryKey returns the label of the i-th seeded entry (1-based): GOV-001.
func entryKey(i int) string { return fmt.Sprintf("GOV-%03d", i) }

func correlationID(i int) string { return fmt.Sprintf("corr-%06x", 0x9f2c00+i) }

func receiptID(i int) string { return fmt.Sprintf("DR-2026-%04d", 4100+i) }

// payload is what a real governance emission carries: the decision, the
// protected prompt it was about, and a credential someone put where it does not belong.
func payload(i int, s entrySpec) string {
	return fmt.Sprintf(`{"receipt":%q,"decision":"declined","tenant":%q,"prompt":%q,"providerAccessToken":%q}`,
		receiptID(i), s.Tenant, protectedPrompt, fakeSecret)
}

// withDefaults fills the metadata a spec leaves out.
func (s entrySpec) withDefaults() entrySpec {
	if s.Provider == "" {
		s.Provider = "acme-audit"
	}
	if s.Region == "" {
		s.Region = "eu-west-1"
	}
	if s.Tenant == "" {
		s.Tenant = "tenant-a"
	}
	if s.Workload == "" {
		s.Workload = "credit-decisioning"
	}
	return s
}

// seedEntries writes one entry per spec, all created at at (Id order is spec
// order), and scripts the emitter for each.
// openSeeded opens the database at location path and seeds specs in it at
// the start of a fresh scenario clock, scripted on a fresh emitter. The
// caller closes the store.
func openSeeded(ctx context.Context, db dialect.Database, specs []entrySpec) (*emission.Store, *clock.ScenarioClock, *emission.Scripted, error) {
	store, err := emission.Open(ctx, db)
	if err != nil {
		return nil, nil, nil, err
	}
	clk := clock.New()
	em := emission.NewScripted()
	if err := seedEntries(ctx, store, em, specs, clk.Now()); err != nil {
		store.Close()
		return nil, nil, nil, err
	}
	return store, clk, em, nil
}

func seedEntries(ctx context.Context, store *emission.Store, em *emission.Scripted, specs []entrySpec, at time.Time) error {
	for i, s := range specs {
		s = s.withDefaults()
		_, err := store.Insert(ctx, emission.NewEntry{
			Key: s.Key, EventType: eventType, CorrelationID: correlationID(i + 1), DecisionReceiptID: receiptID(i + 1),
			Provider: s.Provider, Region: s.Region, Tenant: s.Tenant, Workload: s.Workload, Payload: payload(i+1, s),
			MaxRetryCount: s.MaxRetryCount, RetryCount: s.PriorFailures, CreatedAt: at,
		})
		if err != nil {
			return fmt.Errorf("seed governance entry %s: %w", s.Key, err)
		}
		em.Script(s.Key, s.Steps...)
	}
	return nil
}

// repeat returns n copies of step.
func repeat(n int, step emission.Step) []emission.Step {
	out := make([]emission.Step, n)
	for i := range out {
		out[i] = step
	}
	return out
}

// The scripted results the scenarios use, with provider-neutral codes.
var (
	unavailable = emission.Fail("provider.unavailable", "provider returned 503")
	timeout     = emission.Fail("provider.timeout", "provider did not answer in time")
	throttled   = emission.FailRetryable("provider.throttled", "provider returned 429, retry later")
)
