package main

// claimableSQL is the claim's WHERE and ORDER BY ($1 is the turn's now,
// nowMS): the reference's, or a bug's.
func claimableSQL(nowMS int64) string {
	claimable := `(Status = 'Pending' OR (Status = 'Processing' AND LockedUntilUtc < $1))`
	switch {
	case bug("no-lease-expiry"):
		claimable = `Status = 'Pending' AND $1 <> ''`
	case bug("lease-at-boundary"):
		claimable = `(Status = 'Pending' OR (Status = 'Processing' AND LockedUntilUtc <= $1))`
	case bug("lease-late"):
		claimable = `(Status = 'Pending' OR (Status = 'Processing' AND LockedUntilUtc < '` + timeText(nowMS-1) +
			`' AND $1 <> ''))`
	case bug("lease-early"):
		claimable = `(Status = 'Pending' OR (Status = 'Processing' AND LockedUntilUtc <= '` + timeText(nowMS+1) +
			`' AND $1 <> ''))`
	}
	gate := ` AND (NextAttemptUtc IS NULL OR NextAttemptUtc <= $1)`
	switch {
	case bug("backoff-not-gated"):
		gate = ""
	case bug("gate-strict"):
		gate = ` AND (NextAttemptUtc IS NULL OR NextAttemptUtc < $1)`
	}
	order := ` ORDER BY CreatedAtUtc, Id`
	if bug("claims-newest-first") {
		order = ` ORDER BY CreatedAtUtc DESC, Id DESC`
	}
	return claimable + gate + order
}
