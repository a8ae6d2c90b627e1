package report

import (
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
)

// replayOf is the replay page written beside the report at dir/rel
// (X.txt's is X-replay.html), relative to dir; "" when there is none.
func replayOf(dir, rel string) string {
	page := strings.TrimSuffix(rel, path.Ext(rel)) + "-replay.html"
	if fi, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(page))); err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	return page
}

// replayLink is the index's link to a report's replay page, when it has one.
func replayLink(e Entry) string {
	if e.replay == "" {
		return ""
	}
	return ` · <a class="replay" href="` + url(e.replay) + `">replay</a>`
}

// replayOfReport names what a run writes beside its report for replaying
// it: <report name>-changelog.json and <report name>-replay.html.
var replayOfReport = regexp.MustCompile(`^[A-Za-z0-9-]+-RunReport-\d{8}-\d{6}(?:-\d+)?-(?:changelog\.json|replay\.html)$`)

// replayFile reports whether name is a run's change log or replay page:
// the lab's own, not a report, so the index does not list it as skipped.
func replayFile(name string) bool { return replayOfReport.MatchString(name) }
