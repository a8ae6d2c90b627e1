//go:build race

package crashloop

// raceEnabled is true in a -race build, whose SQLite driver runs about twenty
// times slower: the default crash loop is smaller there.
const raceEnabled = true
