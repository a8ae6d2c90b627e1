// Package similarity finds a worker copied from another, as MOSS does:
// each source file becomes a stream of tokens with comments and whitespace
// dropped and every identifier, number and string made one token, so that
// renaming, reformatting and recommenting change nothing; the stream's runs
// of K tokens are hashed; code every worker was given (the starter) is
// taken out; and two workers are as similar as the share of the smaller
// one's runs the other has too.
package similarity

import (
	"hash/fnv"
	"io/fs"
	"path"
	"strings"
)

// K is the length of a run of tokens compared: long enough that two
// independent solutions rarely share one by chance.
const K = 12

// minRuns is the fewest runs a worker must have of its own (beyond the
// starter) for a score to mean anything.
const minRuns = 25

// sources are the file extensions read as source, with their comment syntax.
var sources = map[string]syntax{
	".go": cLike, ".c": cLike, ".h": cLike, ".java": cLike, ".js": cLike, ".ts": cLike, ".mjs": cLike,
	".cs": cLike, ".rs": cLike, ".kt": cLike, ".swift": cLike, ".php": cLike,
	".py": hashLine, ".rb": hashLine, ".sh": hashLine,
}

// A Print is a worker's fingerprint: the hashes of its runs of K tokens.
type Print map[uint64]bool

// Of is the fingerprint of every source file in fsys (tests included,
// folders starting with . and vendor skipped).
func Of(fsys fs.FS) (Print, error) {
	p := Print{}
	err := fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "vendor") {
				return fs.SkipDir
			}
			return nil
		}
		syn, ok := sources[strings.ToLower(path.Ext(name))]
		if !ok || !d.Type().IsRegular() {
			return nil
		}
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return err
		}
		p.add(tokens(string(data), syn))
		return nil
	})
	return p, err
}

// add puts the hashes of toks' runs of K tokens in p.
func (p Print) add(toks []string) {
	for i := 0; i+K <= len(toks); i++ {
		h := fnv.New64a()
		for _, t := range toks[i : i+K] {
			h.Write([]byte(t))
			h.Write([]byte{0})
		}
		p[h.Sum64()] = true
	}
}

// Without is p less every run base has: the code every worker was given.
func (p Print) Without(base Print) Print {
	out := Print{}
	for h := range p {
		if !base[h] {
			out[h] = true
		}
	}
	return out
}

// Score is how much of the smaller of a and b the other has, from 0 to 1;
// 0 when either has fewer than minRuns runs of its own (nothing to judge).
func Score(a, b Print) float64 {
	small, big := a, b
	if len(b) < len(a) {
		small, big = b, a
	}
	if len(small) < minRuns {
		return 0
	}
	shared := 0
	for h := range small {
		if big[h] {
			shared++
		}
	}
	return float64(shared) / float64(len(small))
}
