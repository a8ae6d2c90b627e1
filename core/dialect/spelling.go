package dialect

import (
	"regexp"
	"strings"
	"sync"
)

// The names the lab's schemas spell, read from the SQLite text of every
// schema a dialect opens or creates (Open, DDL). PostgreSQL folds unquoted
// names to lower case, so its catalog cannot say that a table is
// OutboxMessages; the lab's own DDL can, the same on either database.
var spellings sync.Map // lower case → the spelling

var identifier = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)

// noteSpellings keeps the spelling of each name in a schema's text that
// has both capitals and small letters (OutboxMessages, AttemptCount); SQL's
// words, written in capitals, and names in small letters have none to keep.
// Of two spellings of one name the first in byte order stands, whichever
// schema came first.
func noteSpellings(sqlite string) {
	for _, w := range identifier.FindAllString(sqlite, -1) {
		lw := strings.ToLower(w)
		if w == lw || w == strings.ToUpper(w) {
			continue
		}
		for {
			had, loaded := spellings.LoadOrStore(lw, w)
			if !loaded || had.(string) <= w || spellings.CompareAndSwap(lw, had, w) {
				break
			}
		}
	}
}

// Spellings are the names the schemas opened so far spell, by their lower
// case: "outboxmessages" → "OutboxMessages".
func Spellings() map[string]string {
	out := map[string]string{}
	spellings.Range(func(k, v any) bool {
		out[k.(string)] = v.(string)
		return true
	})
	return out
}
