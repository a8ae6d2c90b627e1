package dialect

import (
	"context"
	"go/ast"
	goparser "go/parser"
	gotoken "go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var createTable = regexp.MustCompile(`CREATE TABLE IF NOT EXISTS (\w+)`)

func TestPostgresDDLTranslates(t *testing.T) {
	tests := []struct{ name, sqlite, want string }{
		{"rowid alias", `CREATE TABLE T (Id INTEGER PRIMARY KEY AUTOINCREMENT, N INTEGER NOT NULL) STRICT;`,
			"CREATE TABLE T (\n    Id BIGINT PRIMARY KEY,\n    N BIGINT NOT NULL\n);\n\n" + rowidTrigger(token{tokWord, "T"}, token{tokWord, "Id"}) + ";\n"},
		{"table primary key on one integer column", `CREATE TABLE T (Id INTEGER, N TEXT, PRIMARY KEY (Id))`,
			"CREATE TABLE T (\n    Id BIGINT,\n    N TEXT COLLATE \"C\",\n    PRIMARY KEY (Id)\n);\n\n" + rowidTrigger(token{tokWord, "T"}, token{tokWord, "Id"}) + ";\n"},
		{"rowid alias after other constraints", `CREATE TABLE T (Id INTEGER NOT NULL CHECK (Id > 0) PRIMARY KEY)`,
			"CREATE TABLE T (\n    Id BIGINT NOT NULL CHECK (Id > 0) PRIMARY KEY\n);\n\n" + rowidTrigger(token{tokWord, "T"}, token{tokWord, "Id"}) + ";\n"},
		{"types", `CREATE TABLE IF NOT EXISTS T (A TEXT, B REAL, C BLOB, D INT PRIMARY KEY) WITHOUT ROWID`,
			"CREATE TABLE IF NOT EXISTS T (\n    A TEXT COLLATE \"C\",\n    B DOUBLE PRECISION,\n    C BYTEA,\n    D BIGINT PRIMARY KEY\n);\n"},
		{"constraints kept, comments dropped", `CREATE TABLE T (
			S TEXT NOT NULL DEFAULT 'Pending' CHECK (S IN ('Pending', 'Done')), -- the status
			P INTEGER REFERENCES U (Id) ON DELETE CASCADE,
			N INTEGER DEFAULT -1 UNIQUE,
			UNIQUE (S, N)
		) STRICT, WITHOUT ROWID;`,
			"CREATE TABLE T (\n    S TEXT COLLATE \"C\" NOT NULL DEFAULT 'Pending' CHECK (S IN ('Pending', 'Done')),\n" +
				"    P BIGINT REFERENCES U (Id) ON DELETE CASCADE,\n    N BIGINT DEFAULT -1 UNIQUE,\n    UNIQUE (S, N)\n);\n"},
		{"reserved names quoted in lower case", `CREATE TABLE R (Partition INTEGER, Offset INTEGER CHECK (Offset >= 0), UNIQUE (Partition, Offset));
			CREATE UNIQUE INDEX IF NOT EXISTS UX ON R (Offset DESC) WHERE Offset > 0`,
			"CREATE TABLE R (\n    Partition BIGINT,\n    \"offset\" BIGINT CHECK (\"offset\" >= 0),\n    UNIQUE (Partition, \"offset\")\n);\n\n" +
				"CREATE UNIQUE INDEX IF NOT EXISTS UX ON R (\"offset\" DESC) WHERE \"offset\" > 0;\n"},
		{"partial index", `CREATE INDEX IF NOT EXISTS IX ON T (CreatedAtUtc, Id) WHERE Status IN ('Pending', 'Processing');`,
			"CREATE INDEX IF NOT EXISTS IX ON T (CreatedAtUtc, Id) WHERE Status IN ('Pending', 'Processing');\n"},
		{"empty", "-- nothing\n", ""},
	}
	for _, tt := range tests {
		got, err := PostgresDDL(tt.sqlite)
		if err != nil || got != tt.want {
			t.Errorf("%s: PostgresDDL = %q, %v\nwant %q", tt.name, got, err, tt.want)
		}
	}
}

// What the translator does not know is an error naming it, never a guess.
func TestPostgresDDLRefusesWhatItDoesNotKnow(t *testing.T) {
	tests := []struct{ sqlite, want string }{
		{`CREATE TRIGGER tr AFTER INSERT ON T BEGIN SELECT 1; END`, `unsupported statement "CREATE TRIGGER tr AFTER ..."`},
		{`PRAGMA foreign_keys = 1`, `unsupported statement "PRAGMA foreign_keys = 1"`},
		{`CREATE TABLE T (A ANY) STRICT`, "column A: unsupported type ANY"},
		{`CREATE TABLE T (A TEXT COLLATE NOCASE)`, `column A: unsupported constraint "COLLATE NOCASE"`},
		{`CREATE TABLE T (A TEXT DEFAULT CURRENT_TIMESTAMP)`, `DEFAULT: unsupported value "CURRENT_TIMESTAMP"`},
		{`CREATE TABLE T (A INTEGER PRIMARY KEY ON CONFLICT REPLACE)`, `unsupported constraint "ON CONFLICT REPLACE"`},
		{`CREATE TABLE T (A TEXT CHECK (IFNULL(A, '') <> ''))`, "SQLite-only function IFNULL"},
		{`CREATE TABLE T (A INTEGER) STRICT, TEMPORARY`, `unsupported table option "TEMPORARY"`},
		{`CREATE TABLE T (A TEXT`, "want ( columns )"},
		{`CREATE TABLE T (A TEXT 'x`, "unterminated '"},
	}
	for _, tt := range tests {
		got, err := PostgresDDL(tt.sqlite)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("PostgresDDL(%q) = %q, %v; want an error containing %q", tt.sqlite, got, err, tt.want)
		}
	}
}

// labSchemas is every schema the lab writes: each .sql file of the
// repository and each Go raw string that creates a table, by where it is.
func labSchemas(t *testing.T) map[string]string {
	root := filepath.Join("..", "..")
	out := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "reports" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(root, path)
		switch {
		case strings.HasSuffix(path, ".sql"):
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			out[rel] = string(b)
		case strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") && !strings.HasPrefix(rel, "core/dialect/"):
			f, err := goparser.ParseFile(gotoken.NewFileSet(), path, nil, goparser.SkipObjectResolution)
			if err != nil {
				return nil // another helper's file mid-edit; the .sql files are what matter most
			}
			ast.Inspect(f, func(n ast.Node) bool {
				lit, ok := n.(*ast.BasicLit)
				if ok && lit.Kind == gotoken.STRING && strings.HasPrefix(lit.Value, "`CREATE TABLE IF NOT EXISTS") {
					s, _ := strconv.Unquote(lit.Value)
					out[rel+":"+strings.Fields(s)[5]] = s
				}
				return true
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"core/outbox/schema.sql", "core/emission/schema.sql", "core/keyedlog/schema.sql",
		"core/provider/durable.sql", "scenarios/ordered/orders.sql"} {
		if _, ok := out[want]; !ok {
			t.Fatalf("schema %s not found among %d", want, len(out))
		}
	}
	return out
}

// Every schema of the lab translates, and the translation applies on a real
// server (after the outbox's, which some reference) through Open's URL path.
func TestLabSchemasApplyOnPostgres(t *testing.T) {
	schemas := labSchemas(t)
	outboxSchema := schemas["core/outbox/schema.sql"]
	for where, schema := range schemas {
		t.Run(where, func(t *testing.T) {
			if _, err := PostgresDDL(schema); err != nil {
				t.Fatal(err)
			}
			run := pgtestRun(t)
			ctx := context.Background()
			db, err := Postgres.Open(ctx, run.URL, testVersion, outboxSchema, schema)
			if err != nil {
				t.Fatalf("Open on PostgreSQL: %v", err)
			}
			defer db.Close()
			tables, err := Postgres.Tables(ctx, db)
			if err != nil {
				t.Fatal(err)
			}
			names := map[string]bool{"labinfo": true}
			for _, m := range createTable.FindAllStringSubmatch(outboxSchema+schema, -1) {
				names[strings.ToLower(m[1])] = true
			}
			if want := len(names); len(tables) != want {
				t.Fatalf("%d tables after Open, want %d", len(tables), want)
			}
			// Opening again (a second worker) applies the same DDL once more without harm.
			db2, err := Postgres.Open(ctx, run.URL, testVersion, outboxSchema, schema)
			if err != nil {
				t.Fatalf("second Open: %v", err)
			}
			db2.Close()
		})
	}
}
