package changelog

import (
	"regexp"
	"slices"
	"strings"

	"outboxlab/core/dialect"
)

// Spelling is how a report spells the names a log holds in lower case:
// OutboxMessages for outboxmessages, AttemptCount for attemptcount.
type Spelling map[string]string

var word = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)

// SpellingOf is how the lab's schemas (dialect.Spellings: the SQLite text
// of every schema opened so far) spell their names, then, for a name they
// never spell, text (a report's body): each of its words under its lower
// case; of a word written several ways the first with a capital letter,
// so that a schema read back from PostgreSQL (in lower case) never
// outspells the report's tables. The same body gives the same spelling
// whichever database ran it.
func SpellingOf(text string) Spelling {
	s := Spelling(dialect.Spellings())
	for _, w := range word.FindAllString(text, -1) {
		lw := strings.ToLower(w)
		if had, ok := s[lw]; !ok || (had == lw && w != lw) { // a schema's spelling stands
			s[lw] = w
		}
	}
	return s
}

// Of is name as spelled; name itself when the report never writes it.
func (s Spelling) Of(name string) string {
	if w, ok := s[strings.ToLower(name)]; ok {
		return w
	}
	return name
}

// Spelled is a copy of l with its tables and columns named as s spells
// them (a change log folds names to lower case: see the package comment).
func (l Log) Spelled(s Spelling) Log {
	out := Log{Designs: make([]Design, len(l.Designs)), Steps: make([]Step, len(l.Steps))}
	for i, d := range l.Designs {
		d.Tables = slices.Clone(d.Tables)
		for j, t := range d.Tables {
			t.Name = s.Of(t.Name)
			t.Columns = slices.Clone(t.Columns)
			for k, c := range t.Columns {
				t.Columns[k] = s.Of(c)
			}
			d.Tables[j] = t
		}
		out.Designs[i] = d
	}
	for i, st := range l.Steps {
		st.Changes = slices.Clone(st.Changes)
		for j, c := range st.Changes {
			c.Table = s.Of(c.Table)
			c.Cells = slices.Clone(c.Cells)
			for k := range c.Cells {
				c.Cells[k].Column = s.Of(c.Cells[k].Column)
			}
			st.Changes[j] = c
		}
		out.Steps[i] = st
	}
	return out
}
