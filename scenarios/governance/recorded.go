package governance

import (
	"context"

	"outboxlab/core/emission"
)

// recorded is what a run left behind, read back once it ended: the
// provider's ledger and the governance tables. Checks and reports judge
// these, never a metric the drain computed.
type recorded struct {
	calls        []emission.Call // the provider's ledger, every call in order
	entries      []emission.Entry
	log          []emission.LogEntry
	remediations []emission.RemediationRecord
	tables       []emission.Table
}

// readRecorded reads the ledger of em and the tables of s.
func (r *recorded) readRecorded(ctx context.Context, s *emission.Store, em *emission.Scripted) (err error) {
	r.calls = em.Calls()
	if r.entries, err = s.Entries(ctx); err != nil {
		return err
	}
	if r.log, err = s.Transitions(ctx); err != nil {
		return err
	}
	if r.remediations, err = s.Remediations(ctx); err != nil {
		return err
	}
	r.tables, err = s.Tables(ctx)
	return err
}
