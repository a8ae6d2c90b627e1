// Package scenarios is the catalogue and the kit the families build on.
//
// Every scenario registers itself here (Register) from its family package
// (wassal, retry, ordered, governance, workers); what its report is made of
// is declared here once: a Metric is a number a report is judged by (its
// table row and its JSON key), PairReport is the BEFORE/AFTER skeleton a
// pair fills in as a spec, SchemaSection and WriteOutboxLedger print what a
// run left, and Env is what the harness gives a run.
//
// A new scenario is one spec file in its family's folder, its golden report
// (testdata/golden/<name>.txt: go test ./cli -run 'TestGoldenReports$' -update,
// then review it), its place in courseOrder (order.go; a test requires it)
// and its row in the README's catalogue. Copy the file of its kind:
//
//   - a BEFORE/AFTER pair: scenarios/ordered/orphan.go, the BEFORE, with
//     depends_on.go, its AFTER; both fill in one PairReport (ordered's
//     reportPair), and the Scenario's Pair names the partner. A pair of
//     another family copies its own: wassal/session13.go, retry's
//     backoff_held_past_visibility_timeout.go, governance's
//     stale_claim_overwrites.go.
//   - an experiment (one report, no partner):
//     scenarios/ordered/publish_failure_event.go.
package scenarios
