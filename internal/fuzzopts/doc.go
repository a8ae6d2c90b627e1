// Package fuzzopts fuzzes scenario options through the same Bind, Parse and
// Validate the command line uses; it has no code of its own.
//
//	go test ./internal/fuzzopts -run '^$' -fuzz '^FuzzSession16Options$' -fuzztime 10s
package fuzzopts
