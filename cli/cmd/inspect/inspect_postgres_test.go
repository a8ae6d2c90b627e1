package inspect

import (
	"testing"

	"outboxlab/core/pgdb"
)

// withPassword gives inspect the password a kept schema's URL lacks, from
// where the user keeps it, and never overrides one the URL really has.
func TestInspectURLTakesThePasswordItLacks(t *testing.T) {
	const kept = "postgres://lab:xxxxx@db.example/lab?options=-csearch_path%3Doutboxlab_x_1"
	for _, tc := range []struct {
		name, url string
		env       map[string]string
		want      string
	}{
		{"a real password is kept", "postgres://lab:s3cret@db.example/lab", map[string]string{"PGPASSWORD": "other"},
			"postgres://lab:s3cret@db.example/lab"},
		{"the redaction mark goes, PGPASSWORD is pgx's", kept, map[string]string{"PGPASSWORD": "pw"},
			"postgres://lab@db.example/lab?options=-csearch_path%3Doutboxlab_x_1"},
		{"from OUTBOXLAB_DATABASE for the same user", kept, map[string]string{pgdb.EnvVar: "postgres://lab:fromenv@db.example/lab"},
			"postgres://lab:fromenv@db.example/lab?options=-csearch_path%3Doutboxlab_x_1"},
		{"not from another user's URL", kept, map[string]string{pgdb.EnvVar: "postgres://admin:root@db.example/lab"},
			"postgres://lab@db.example/lab?options=-csearch_path%3Doutboxlab_x_1"},
		{"none anywhere", "postgres://lab@db.example/lab", nil, "postgres://lab@db.example/lab"},
		{"a redacted password parameter", "postgres://db.example/lab?password=xxxxx&user=lab", map[string]string{pgdb.EnvVar: "postgres://lab:e@db.example/lab"},
			"postgres://db.example/lab?password=e&user=lab"},
	} {
		got := withPassword(tc.url, func(k string) string { return tc.env[k] })
		if got != tc.want {
			t.Errorf("%s: withPassword(%s) = %s, want %s", tc.name, tc.url, got, tc.want)
		}
	}
}
