// Package ceiling holds the tree to the sizes the team's style sets: no
// non-test Go file over MaxFileLines lines, no function over MaxFuncLines
// (files of 100–300 lines, functions that fit on a screen, is the aim).
// Its test fails the build when one grows past them: split by concept.
package ceiling

// The ceilings.
const (
	MaxFileLines = 400
	MaxFuncLines = 80
)
