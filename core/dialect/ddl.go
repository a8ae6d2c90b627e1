package dialect

import (
	"fmt"
	"strings"
)

// PostgresDDL translates the SQLite DDL the lab's families write (CREATE
// TABLE and CREATE [UNIQUE] INDEX, with IF NOT EXISTS) into PostgreSQL's
// words, so each family keeps one schema text for both databases:
//
//   - INTEGER PRIMARY KEY [AUTOINCREMENT], SQLite's rowid alias, becomes
//     BIGINT PRIMARY KEY with a trigger that numbers rows as SQLite does
//     (see rowidTrigger): an insert that gives no id gets the table's
//     largest id + 1. Not an identity column: a sequence keeps the numbers
//     a rolled-back insert (or one that hit ON CONFLICT DO NOTHING) took,
//     so ids, and the reports that show them, would differ from SQLite's;
//     AUTOINCREMENT, which SQLite uses only to never reuse the id of a
//     deleted last row, is read as the plain rowid;
//   - INTEGER and INT become BIGINT, TEXT becomes TEXT COLLATE "C" (times
//     are compared and ordered as text, by bytes, as on SQLite), REAL
//     becomes DOUBLE PRECISION, BLOB becomes BYTEA;
//   - NOT NULL, DEFAULT, CHECK, UNIQUE, PRIMARY KEY, REFERENCES (with ON
//     DELETE/UPDATE), FOREIGN KEY, CONSTRAINT names and partial indexes are
//     kept; STRICT and WITHOUT ROWID are dropped; comments are dropped;
//   - a name that PostgreSQL reserves (Offset, Order, User, ...) is quoted in
//     lower case ("offset"), as PostgreSQL folds every unquoted name: a query
//     must then quote it so, or qualify it (LogRecords.Offset); a name the
//     SQLite text quotes stays quoted as written;
//
// Anything else (another statement, a type, a column constraint or a
// default it does not know, a default read from the server's clock) is an
// error that names it: the translation is never silently wrong.
func PostgresDDL(sqlite string) (string, error) {
	toks, err := lex(sqlite)
	if err != nil {
		return "", err
	}
	tr := &translator{columns: map[string]map[string]bool{}}
	var out []string
	for _, stmt := range splitStatements(toks) {
		s, err := tr.statement(stmt)
		if err != nil {
			return "", fmt.Errorf("translate DDL to PostgreSQL: %w", err)
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return "", nil
	}
	return strings.Join(out, ";\n\n") + ";\n", nil
}

// translator remembers each table's columns, so an index or a CHECK
// written later quotes a reserved column name the way its table did.
type translator struct {
	columns map[string]map[string]bool // lower-case table name -> lower-case column names
	rowid   token                      // the current table's rowid alias, if it has one
	integer map[string]token           // the current table's INTEGER columns, by lower-case name
}

func (tr *translator) statement(s []token) (string, error) {
	p := &parser{toks: s}
	if !p.word("CREATE") {
		return "", fmt.Errorf("unsupported statement %q: only CREATE TABLE and CREATE INDEX are translated", p.head())
	}
	switch {
	case p.word("TABLE"):
		return tr.createTable(p)
	case p.peekWord("UNIQUE") || p.peekWord("INDEX"):
		return tr.createIndex(p)
	}
	return "", fmt.Errorf("unsupported statement %q: only CREATE TABLE and CREATE INDEX are translated", p.headOf(s))
}

func (tr *translator) createTable(p *parser) (string, error) {
	head := "CREATE TABLE "
	if p.words("IF", "NOT", "EXISTS") {
		head += "IF NOT EXISTS "
	}
	name, ok := p.name()
	if !ok {
		return "", fmt.Errorf("CREATE TABLE: want a table name, got %q", p.head())
	}
	tr.rowid, tr.integer = token{}, map[string]token{}
	cols := map[string]bool{}
	tr.columns[strings.ToLower(name.text)] = cols
	body, ok := p.parens()
	if !ok {
		return "", fmt.Errorf("table %s: want ( columns ), got %q", name.text, p.head())
	}
	items := splitTop(body)
	// Column names first: a CHECK may name a column defined after it.
	for _, item := range items {
		if len(item) > 0 && !isTableConstraint(item) {
			cols[strings.ToLower(item[0].unquoted())] = true
		}
	}
	var lines []string
	for _, item := range items {
		line, err := tr.tableItem(item, cols)
		if err != nil {
			return "", fmt.Errorf("table %s: %w", name.text, err)
		}
		lines = append(lines, line)
	}
	// Table options: STRICT and WITHOUT ROWID mean nothing to PostgreSQL.
	for !p.done() {
		switch {
		case p.word("STRICT"), p.words("WITHOUT", "ROWID"), p.punct(","):
		default:
			return "", fmt.Errorf("table %s: unsupported table option %q", name.text, p.head())
		}
	}
	out := head + ident(name, nil) + " (\n    " + strings.Join(lines, ",\n    ") + "\n)"
	if tr.rowid.text != "" {
		out += ";\n\n" + rowidTrigger(name, tr.rowid)
	}
	return out, nil
}

// rowidLockClass is the first key of the advisory lock rowidTrigger takes
// (the second is the table's oid): "rowi".
const rowidLockClass = 0x726f7769

// rowidTrigger numbers the rows of table as SQLite numbers a rowid alias:
// an insert without an id gets the largest id + 1. The transaction holds a
// lock on the table's numbering until it ends, so a concurrent insert waits
// and then sees the row (READ COMMITTED: each statement of the function
// reads what is committed when it starts); SQLite's one writer at a time
// gives the same numbers. An insert that gives its id takes no lock.
func rowidTrigger(table, column token) string {
	t, c := ident(table, nil), ident(column, map[string]bool{})
	fn := `"` + strings.ReplaceAll(strings.ToLower(table.unquoted()), `"`, ``) + `_rowid"`
	col := c
	if column.kind != tokQuoted && !pgReserved[strings.ToUpper(column.text)] {
		col = strings.ToLower(column.text)
	}
	return fmt.Sprintf(`CREATE OR REPLACE FUNCTION %[1]s() RETURNS trigger LANGUAGE plpgsql AS $rowid$
BEGIN
    IF NEW.%[2]s IS NULL THEN
        PERFORM pg_advisory_xact_lock(%[4]d, TG_RELID::int4);
        SELECT COALESCE(MAX(%[2]s), 0) + 1 INTO NEW.%[2]s FROM %[3]s;
    END IF;
    RETURN NEW;
END
$rowid$;

DO $rowid$ BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgrelid = '%[3]s'::regclass AND tgname = %[5]s) THEN
        CREATE TRIGGER %[1]s BEFORE INSERT ON %[3]s FOR EACH ROW EXECUTE FUNCTION %[1]s();
    END IF;
END
$rowid$`, fn, col, t, rowidLockClass, "'"+strings.Trim(fn, `"`)+"'")
}

func isTableConstraint(item []token) bool {
	switch strings.ToUpper(item[0].text) {
	case "CONSTRAINT", "PRIMARY", "UNIQUE", "CHECK", "FOREIGN":
		return item[0].kind == tokWord
	}
	return false
}

// tableItem translates one column definition or table constraint.
func (tr *translator) tableItem(item []token, cols map[string]bool) (string, error) {
	p := &parser{toks: item}
	if isTableConstraint(item) {
		return tr.constraints(p, cols, true)
	}
	name, _ := p.name()
	typ, ok := p.next()
	if !ok || typ.kind != tokWord {
		return "", fmt.Errorf("column %s: want a type (STRICT tables have one), got %q", name.text, typ.text)
	}
	out := ident(name, cols) + " "
	switch strings.ToUpper(typ.text) {
	case "INTEGER":
		out += "BIGINT"
		if primaryKey(item[p.pos:]) {
			tr.rowid = name // SQLite's rowid alias
		}
		tr.integer[strings.ToLower(name.unquoted())] = name
	case "INT":
		out += "BIGINT"
	case "TEXT":
		out += `TEXT COLLATE "C"`
	case "REAL":
		out += "DOUBLE PRECISION"
	case "BLOB":
		out += "BYTEA"
	default:
		return "", fmt.Errorf("column %s: unsupported type %s", name.text, typ.text)
	}
	rest, err := tr.constraints(p, cols, false)
	if err != nil {
		return "", fmt.Errorf("column %s: %w", name.text, err)
	}
	if rest != "" {
		out += " " + rest
	}
	return out, nil
}

// primaryKey reports whether a column's constraints make it its table's
// PRIMARY KEY (not DESC: SQLite's one exception to the rowid alias).
func primaryKey(constraints []token) bool {
	p := &parser{toks: constraints}
	for depth := 0; !p.done(); {
		switch {
		case depth == 0 && p.words("PRIMARY", "KEY"):
			return !p.peekWord("DESC")
		case p.punct("("):
			depth++
		case p.punct(")"):
			depth--
		default:
			p.pos++
		}
	}
	return false
}

// constraints translates a column's constraints (or, with table set, one
// table constraint) until p is done.
func (tr *translator) constraints(p *parser, cols map[string]bool, table bool) (string, error) {
	var out []string
	emit := func(s ...string) { out = append(out, s...) }
	for !p.done() {
		switch {
		case p.word("CONSTRAINT"):
			n, ok := p.name()
			if !ok {
				return "", fmt.Errorf("CONSTRAINT: want a name, got %q", p.head())
			}
			emit("CONSTRAINT", ident(n, nil))
		case p.words("NOT", "NULL"):
			emit("NOT NULL")
		case p.word("NULL"):
			emit("NULL")
		case p.words("PRIMARY", "KEY"):
			emit("PRIMARY KEY")
			if table {
				at := p.pos
				list, err := tr.columnList(p, cols)
				if err != nil {
					return "", fmt.Errorf("PRIMARY KEY: %w", err)
				}
				emit(list)
				// PRIMARY KEY (Id) on one INTEGER column is a rowid alias too.
				if key := p.toks[at+1 : p.pos-1]; len(key) == 1 {
					if c, ok := tr.integer[strings.ToLower(key[0].unquoted())]; ok {
						tr.rowid = c
					}
				}
			}
			p.word("ASC")
			if p.peekWord("DESC") {
				return "", fmt.Errorf("unsupported PRIMARY KEY DESC")
			}
			p.word("AUTOINCREMENT") // the identity never reuses an id either
		case p.word("UNIQUE"):
			emit("UNIQUE")
			if table {
				list, err := tr.columnList(p, cols)
				if err != nil {
					return "", fmt.Errorf("UNIQUE: %w", err)
				}
				emit(list)
			}
		case p.word("CHECK"):
			expr, ok := p.parens()
			if !ok {
				return "", fmt.Errorf("CHECK: want ( expression ), got %q", p.head())
			}
			e, err := expression(expr, cols)
			if err != nil {
				return "", fmt.Errorf("CHECK: %w", err)
			}
			emit("CHECK (" + e + ")")
		case p.word("DEFAULT"):
			d, err := defaultValue(p, cols)
			if err != nil {
				return "", err
			}
			emit("DEFAULT " + d)
		case p.words("FOREIGN", "KEY"):
			list, err := tr.columnList(p, cols)
			if err != nil {
				return "", fmt.Errorf("FOREIGN KEY: %w", err)
			}
			emit("FOREIGN KEY", list)
		case p.word("REFERENCES"):
			ref, err := tr.references(p)
			if err != nil {
				return "", err
			}
			emit(ref)
		default:
			return "", fmt.Errorf("unsupported constraint %q", p.head())
		}
	}
	return strings.Join(out, " "), nil
}
