package day17

import (
	"strconv"

	"outboxlab/core/report"
	"outboxlab/grade/changelog"
)

// Day 17's own table, Redrives: the entries the redrive released may be
// verified with the provider, and the report shows the table.

// redriven reports whether a Redrives row for message id was written: the
// redrive may verify the entries it released.
func redriven(changes []changelog.Change, id int64) bool {
	for _, c := range changes {
		if c.Table == "Redrives" && c.Op == "INSERT" && c.New["messageid"] == strconv.FormatInt(id, 10) {
			return true
		}
	}
	return false
}

// showRedrives is the Redrives table, as the redrive left it.
func showRedrives(rep *report.Report, redrives []changelog.Row) {
	var rows [][]string
	for _, rd := range redrives {
		rows = append(rows, []string{rd.Get("MessageKey"), rd.Get("Batch"), rd.Get("OriginalAttemptCount"),
			changelog.OrDash(rd.Get("Outcome")), changelog.OrDash(rd.Get("VerifiedTransactionId")),
			changelog.Stamp(rd.Get("ClosedAtUtc"))})
	}
	rep.Line("")
	rep.Line("Redrives, as the redrive left them:")
	rep.Table([]string{"Key", "Batch", "Orig. attempts", "Outcome", "Verified", "ClosedAt"}, rows)
}
