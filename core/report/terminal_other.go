//go:build !unix

package report

import "os"

// terminalColumns is 0 where the lab does not read a terminal's width: its
// output is laid out for MaxWidth columns (or COLUMNS).
func terminalColumns(*os.File) int { return 0 }
