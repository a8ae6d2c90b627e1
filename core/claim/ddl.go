package claim

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

// references translates REFERENCES table [(columns)] [ON DELETE|UPDATE action]...
func (tr *translator) references(p *parser) (string, error) {
	n, ok := p.name()
	if !ok {
		return "", fmt.Errorf("REFERENCES: want a table name, got %q", p.head())
	}
	out := "REFERENCES " + ident(n, nil)
	if p.peekPunct("(") {
		list, err := tr.columnList(p, tr.columns[strings.ToLower(n.unquoted())])
		if err != nil {
			return "", fmt.Errorf("REFERENCES %s: %w", n.text, err)
		}
		out += " " + list
	}
	for p.word("ON") {
		event, ok := p.next()
		if !ok || !(strings.EqualFold(event.text, "DELETE") || strings.EqualFold(event.text, "UPDATE")) {
			return "", fmt.Errorf("REFERENCES %s: unsupported ON %q", n.text, event.text)
		}
		var action string
		switch {
		case p.word("CASCADE"):
			action = "CASCADE"
		case p.word("RESTRICT"):
			action = "RESTRICT"
		case p.words("SET", "NULL"):
			action = "SET NULL"
		case p.words("SET", "DEFAULT"):
			action = "SET DEFAULT"
		case p.words("NO", "ACTION"):
			action = "NO ACTION"
		default:
			return "", fmt.Errorf("REFERENCES %s: unsupported action %q", n.text, p.head())
		}
		out += " ON " + strings.ToUpper(event.text) + " " + action
	}
	return out, nil
}

// columnList translates ( name [ASC|DESC], ... ).
func (tr *translator) columnList(p *parser, cols map[string]bool) (string, error) {
	body, ok := p.parens()
	if !ok {
		return "", fmt.Errorf("want ( columns ), got %q", p.head())
	}
	var names []string
	for _, item := range splitTop(body) {
		q := &parser{toks: item}
		n, ok := q.name()
		if !ok {
			return "", fmt.Errorf("want a column name, got %q", q.head())
		}
		s := ident(n, cols)
		switch {
		case q.word("ASC"):
			s += " ASC"
		case q.word("DESC"):
			s += " DESC"
		}
		if !q.done() {
			return "", fmt.Errorf("unsupported column %q", joinTokens(item))
		}
		names = append(names, s)
	}
	return "(" + strings.Join(names, ", ") + ")", nil
}

func (tr *translator) createIndex(p *parser) (string, error) {
	head := "CREATE "
	if p.word("UNIQUE") {
		head += "UNIQUE "
	}
	p.word("INDEX")
	head += "INDEX "
	if p.words("IF", "NOT", "EXISTS") {
		head += "IF NOT EXISTS "
	}
	name, ok := p.name()
	if !ok || !p.word("ON") {
		return "", fmt.Errorf("CREATE INDEX: want a name and ON table, got %q", p.head())
	}
	table, ok := p.name()
	if !ok {
		return "", fmt.Errorf("index %s: want a table name, got %q", name.text, p.head())
	}
	cols := tr.columns[strings.ToLower(table.unquoted())]
	list, err := tr.columnList(p, cols)
	if err != nil {
		return "", fmt.Errorf("index %s: %w", name.text, err)
	}
	out := head + ident(name, nil) + " ON " + ident(table, nil) + " " + list
	if p.word("WHERE") {
		e, err := expression(p.rest(), cols)
		if err != nil {
			return "", fmt.Errorf("index %s: WHERE: %w", name.text, err)
		}
		out += " WHERE " + e
	} else if !p.done() {
		return "", fmt.Errorf("index %s: unsupported %q", name.text, p.head())
	}
	return out, nil
}

// defaultValue translates DEFAULT's value: a literal, a signed number, a
// parenthesized expression, NULL, TRUE or FALSE.
func defaultValue(p *parser, cols map[string]bool) (string, error) {
	t, ok := p.next()
	if !ok {
		return "", fmt.Errorf("DEFAULT: want a value")
	}
	switch {
	case t.kind == tokString || t.kind == tokNumber:
		return t.text, nil
	case t.text == "-" || t.text == "+":
		n, ok := p.next()
		if !ok || n.kind != tokNumber {
			return "", fmt.Errorf("DEFAULT: unsupported value %q", t.text+n.text)
		}
		return t.text + n.text, nil
	case t.text == "(":
		p.pos--
		expr, _ := p.parens()
		e, err := expression(expr, cols)
		if err != nil {
			return "", fmt.Errorf("DEFAULT: %w", err)
		}
		return "(" + e + ")", nil
	case t.kind == tokWord:
		switch strings.ToUpper(t.text) {
		case "NULL", "TRUE", "FALSE":
			return strings.ToUpper(t.text), nil
		}
	}
	// CURRENT_TIMESTAMP and friends read the server's clock, never scenario time.
	return "", fmt.Errorf("DEFAULT: unsupported value %q", t.text)
}

// expression copies a CHECK or WHERE expression, quoting reserved column
// names and refusing SQLite-only functions.
func expression(toks []token, cols map[string]bool) (string, error) {
	var b []string
	for i, t := range toks {
		if t.kind == tokWord && i+1 < len(toks) && toks[i+1].text == "(" {
			if sqliteOnly[strings.ToUpper(t.text)] {
				return "", fmt.Errorf("SQLite-only function %s", t.text)
			}
		}
		if t.kind == tokQuoted || t.kind == tokWord && cols[strings.ToLower(t.text)] {
			b = append(b, ident(t, cols))
			continue
		}
		b = append(b, t.text)
	}
	return joinText(b), nil
}

// sqliteOnly are functions PostgreSQL does not have (or has with another meaning).
var sqliteOnly = map[string]bool{
	"IFNULL": true, "PRINTF": true, "GROUP_CONCAT": true, "DATETIME": true, "DATE": true,
	"TIME": true, "JULIANDAY": true, "STRFTIME": true, "UNIXEPOCH": true, "INSTR": true,
	"TYPEOF": true, "GLOB": true, "LIKELY": true, "UNLIKELY": true, "IIF": true,
	"TOTAL_CHANGES": true, "CHANGES": true, "LAST_INSERT_ROWID": true,
	"RANDOMBLOB": true, "ZEROBLOB": true, "HEX": true,
}

// ident writes a table, index or column name for PostgreSQL: as written,
// unless PostgreSQL reserves it (then quoted, in lower case, as PostgreSQL
// folds the unquoted names of every other column). A name quoted in the
// SQLite text stays quoted as written: queries quote it the same way.
func ident(t token, _ map[string]bool) string {
	name := t.unquoted()
	switch {
	case t.kind == tokQuoted:
		return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
	case pgReserved[strings.ToUpper(name)]:
		return `"` + strings.ToLower(name) + `"`
	}
	return name
}

// pgReserved are PostgreSQL's keywords that cannot name a column unquoted
// (reserved, and reserved but for functions or types: see the appendix
// "SQL Key Words" of the PostgreSQL manual).
var pgReserved = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`ALL ANALYSE ANALYZE AND ANY ARRAY AS ASC ASYMMETRIC BOTH CASE CAST
		CHECK COLLATE COLUMN CONSTRAINT CREATE CURRENT_CATALOG CURRENT_DATE CURRENT_ROLE CURRENT_TIME
		CURRENT_TIMESTAMP CURRENT_USER DEFAULT DEFERRABLE DESC DISTINCT DO ELSE END EXCEPT FALSE FETCH
		FOR FOREIGN FROM GRANT GROUP HAVING IN INITIALLY INTERSECT INTO LATERAL LEADING LIMIT LOCALTIME
		LOCALTIMESTAMP NOT NULL OFFSET ON ONLY OR ORDER PLACING PRIMARY REFERENCES RETURNING SELECT
		SESSION_USER SOME SYMMETRIC SYSTEM_USER TABLE THEN TO TRAILING TRUE UNION UNIQUE USER USING
		VARIADIC WHEN WHERE WINDOW WITH
		AUTHORIZATION BINARY COLLATION CONCURRENTLY CROSS CURRENT_SCHEMA FREEZE FULL ILIKE INNER IS
		ISNULL JOIN LEFT LIKE NATURAL NOTNULL OUTER OVERLAPS RIGHT SIMILAR TABLESAMPLE VERBOSE`) {
		m[w] = true
	}
	return m
}()
