package dialect

import (
	"fmt"
	"strings"
)

// The clauses of PostgresDDL's statements below a column: references,
// column lists, indexes, defaults and expressions.

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
