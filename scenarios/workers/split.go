package workers

import "regexp"

// How concurrent claims split a backlog is the database's: SQLite's writers
// take turns on its one write lock, so each claim of a round takes a whole
// batch, while PostgreSQL's run side by side and skip each other's rows (FOR
// UPDATE SKIP LOCKED), so two claims of one round may share what one takes on
// SQLite, and two PostgreSQL runs may split it differently. A comparison of
// two runs leaves these figures out; the drain checks judge them in every
// run, on either database.

// splitRow is a drain table's row of several workers claiming many messages
// at a time: its claim and settlement counts and transactions per message
// (the three cells after the label).
var splitRow = regexp.MustCompile(`(?m)^(│ [2-9]\d* workers, claim \d{2,} +│)[^│]*│[^│]*│[^│]*│`)

// MaskSplit returns body with the drain table cells that depend on how
// concurrent claims split a backlog masked.
func MaskSplit(body string) string {
	return splitRow.ReplaceAllString(body, "$1 (split by the database) │ │ │")
}

// IsSplitMetric reports whether key is a drain's metric that depends on how
// concurrent claims split a backlog: its claim and settlement transactions,
// counted by the workers and read back from the settlement ledger.
func IsSplitMetric(key string) bool {
	return key == "claims" || key == "settlements" || key == "ledger_settlements"
}
