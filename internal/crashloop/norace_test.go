//go:build !race

package crashloop

// raceEnabled is true in a -race build (see race_test.go).
const raceEnabled = false
