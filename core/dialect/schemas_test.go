package dialect_test

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

	"outboxlab/core/dialect"
	"outboxlab/internal/pgtest"
)

// TestMain stops the test binary's PostgreSQL server (see pgtest).
func TestMain(m *testing.M) { pgtest.Main(m) }

const testVersion = "outboxlab/dialect-test"

var createTable = regexp.MustCompile(`CREATE TABLE IF NOT EXISTS (\w+)`)

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
			if _, err := dialect.PostgresDDL(schema); err != nil {
				t.Fatal(err)
			}
			loc := pgtest.Database(t, "dialect").Location()
			ctx := context.Background()
			db, err := dialect.Postgres.Open(ctx, loc, testVersion, outboxSchema, schema)
			if err != nil {
				t.Fatalf("Open on PostgreSQL: %v", err)
			}
			defer db.Close()
			tables, err := dialect.Postgres.Tables(ctx, db)
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
			db2, err := dialect.Postgres.Open(ctx, loc, testVersion, outboxSchema, schema)
			if err != nil {
				t.Fatalf("second Open: %v", err)
			}
			db2.Close()
		})
	}
}
