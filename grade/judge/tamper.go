package judge

import (
	"fmt"

	"outboxlab/core/report"
	"outboxlab/grade/sched"
)

// record: the change log the other checks read holds every row change as
// the lab saw the rows. The lab held it against the Day's tables, read on
// its own connection at every turn's end (sched's guard): a log row that
// does not fit the row as it stood, a row change no log row holds, a log
// row missing, or rewritten after the lab read it, is the run tampered with.
func (j *Judge) record() {
	r := j.Run
	j.AddExercised("protocol: the change log holds every row change, untampered",
		len(r.Changes) > 0, "no row changed", r.Violations[sched.RuleRecord],
		fmt.Sprintf("%s, held against the rows at every turn's end", report.Plural(len(r.Changes), "log row")))
}
