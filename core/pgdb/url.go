package pgdb

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/jackc/pgx/v5"

	"outboxlab/core/dblocation"
)

// EnvVar holds the database URL when no --database flag is given; the flag
// wins. The lab also hands the URL to its child processes in it, never as an
// argument, so no process list shows a password.
const EnvVar = "OUTBOXLAB_DATABASE_URL"

// LegacyEnvVar is the name the command line read before EnvVar, and still
// reads where it holds a PostgreSQL URL (or something written as a URL,
// which is then checked as one). grade hands a worker its SQLite file under
// the same name (docs/grade-protocol.md): a file path there is the
// worker's, and the command line leaves it alone, so an outboxlab started
// inside a worker runs as anywhere else.
const LegacyEnvVar = "OUTBOXLAB_DATABASE"

// redacted stands where a password was.
const redacted = "xxxxx"

// passwordParams are the query parameters that carry a secret.
var passwordParams = []string{"password", "sslpassword"}

// Selected returns the database URL a run uses and where it came from: the
// --database flag when it was given ("--database"), else getenv(EnvVar),
// else getenv(LegacyEnvVar) unless that is a file path. "" means the default
// (a temporary SQLite file); anything else must pass ParseURL.
func Selected(flag string, flagSet bool, getenv func(string) string) (value, source string) {
	if flagSet {
		return flag, "--database"
	}
	if v := getenv(EnvVar); v != "" {
		return v, EnvVar
	}
	v := getenv(LegacyEnvVar)
	if l, err := dblocation.Parse(v); v == "" || err == nil && l.Kind() == dblocation.SQLite {
		return "", "" // a worker's SQLite file (grade's protocol), not a server
	}
	return v, LegacyEnvVar
}

// EnvEntry is the "OUTBOXLAB_DATABASE=url" entry that hands url to a child
// process through its environment (exec.Cmd.Env).
func EnvEntry(rawURL string) string { return EnvVar + "=" + rawURL }

// ParseURL checks that rawURL is a PostgreSQL URL (postgres:// or
// postgresql://, any letter case: dblocation.Parse) that pgx accepts, and
// returns its connection settings. Any other value is a usage error
// (errors.Is(err, ErrUsage)) with one line that shows the URL redacted. pgx
// only ever sees the URL with its scheme lower-cased: it would read
// "POSTGRES://..." as keywords and connect to its default server.
func ParseURL(rawURL string) (*pgx.ConnConfig, error) {
	loc, err := dblocation.ParsePostgres(rawURL)
	if err != nil {
		return nil, newError(ErrUsage, "read database URL", rawURL, dblocation.ErrNotPostgres)
	}
	rawURL = loc.URL()
	if _, err := url.Parse(rawURL); err != nil {
		return nil, newError(ErrUsage, "read database URL", rawURL, fmt.Errorf("malformed URL"))
	}
	cfg, err := pgx.ParseConfig(rawURL)
	if err != nil {
		return nil, newError(ErrUsage, "read database URL", rawURL, unwrapParse(err))
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = ConnectTimeout
	}
	return cfg, nil
}

// unwrapParse keeps the reason of pgx's parse error without the (redacted,
// but long) connection string it quotes.
func unwrapParse(err error) error {
	msg := err.Error()
	if i := strings.LastIndex(msg, "`: "); i >= 0 {
		msg = msg[i+3:]
	}
	return fmt.Errorf("%s", msg)
}

// Redact returns rawURL with its password (in the user part or a password
// parameter) replaced by xxxxx. It never fails: a URL it cannot parse is
// redacted by pattern.
func Redact(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil || !dblocation.IsPostgres(rawURL) {
		return redactByPattern(rawURL) // not ours: kept as typed, but for its secrets
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), redacted)
	}
	q := u.Query()
	changed := false
	for _, p := range passwordParams {
		if q.Has(p) {
			q.Set(p, redacted)
			changed = true
		}
	}
	if changed {
		u.RawQuery = strings.ReplaceAll(q.Encode(), "+", "%20") // as WithSchema
	}
	return u.String()
}

var (
	userinfoPassword = regexp.MustCompile(`(://[^:/@?#]*:)[^@/?#]*@`)
	paramPassword    = regexp.MustCompile(`(?i)((?:^|[?&\s])(?:ssl)?pass(?:word|%77ord)\s*=\s*)(?:'[^']*'|[^&\s]*)`)
)

func redactByPattern(s string) string {
	s = userinfoPassword.ReplaceAllString(s, "${1}"+redacted+"@")
	return paramPassword.ReplaceAllString(s, "${1}"+redacted)
}

// secrets lists what must never appear in a message about rawURL: its
// passwords, raw and escaped.
func secrets(rawURL string) []string {
	var out []string
	for _, p := range Passwords(rawURL) {
		out = append(out, p, url.QueryEscape(p), url.PathEscape(p))
	}
	return out
}

// Passwords are the secrets in rawURL, as they are: the user part's and a
// password parameter's. A location that is no URL has none.
func Passwords(rawURL string) []string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil
	}
	var out []string
	if p, ok := u.User.Password(); ok && p != "" {
		out = append(out, p)
	}
	for _, name := range passwordParams {
		if p := u.Query().Get(name); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// WithAppName returns rawURL set to name its sessions appName
// (application_name, cut to PostgreSQL's identifier limit), replacing the
// one it had.
func WithAppName(rawURL, appName string) (string, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "", newError(ErrUsage, "read database URL", rawURL, fmt.Errorf("malformed URL"))
	}
	if len(appName) > maxIdent {
		appName = appName[:maxIdent]
	}
	q := u.Query()
	q.Set("application_name", appName)
	u.RawQuery = strings.ReplaceAll(q.Encode(), "+", "%20") // as WithSchema
	return u.String(), nil
}

// AppName is the application_name rawURL gives its sessions ("" if none).
func AppName(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return ""
	}
	return u.Query().Get("application_name")
}

// WithSchema returns rawURL set to use schema (through the options parameter,
// -c search_path=..., which pgx and libpq both accept) and, when appName is
// not empty, to name its sessions appName (application_name), so
// TerminateBackends can find them. A search_path or application_name already
// in the URL is replaced.
func WithSchema(rawURL, schema, appName string) (string, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "", newError(ErrUsage, "read database URL", rawURL, fmt.Errorf("malformed URL"))
	}
	q := u.Query()
	q.Del("search_path")
	opts := strings.TrimSpace(q.Get("options") + " -csearch_path=" + schema)
	q.Set("options", opts)
	if appName != "" {
		q.Set("application_name", appName)
	}
	// Encode writes a space as "+", which libpq (psql) would keep as a plus.
	u.RawQuery = strings.ReplaceAll(q.Encode(), "+", "%20")
	return u.String(), nil
}
