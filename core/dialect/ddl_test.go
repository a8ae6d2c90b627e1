package dialect

import (
	"strings"
	"testing"
)

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
