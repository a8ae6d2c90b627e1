package proctree

import "testing"

func TestGroupOfReadsProcStat(t *testing.T) {
	cases := []struct {
		stat string
		pgid int
		live bool
	}{
		{"123 (sleep) S 1 77 77 0 -1 4194560 0 0", 77, true},
		{"124 (a (b) c) R 1 81 5 0", 81, true},
		{"125 (sh) Z 1 77 77 0", 77, false},
		{"126 (sh) X 1 77 77 0", 77, false},
		{"127 (sh) S 1", 0, false},
		{"garbage", 0, false},
	}
	for _, c := range cases {
		if g, live := groupOf(c.stat); g != c.pgid || live != c.live {
			t.Errorf("groupOf(%q) = %d, %v; want %d, %v", c.stat, g, live, c.pgid, c.live)
		}
	}
}
