package governance

import (
	"fmt"
	"strings"
)

// given lists the range-declared flags set on the command line, with their
// values, for a refusal to name.
func (d *drainFlags) given() string {
	fs := d.flags.FlagSet()
	var out []string
	for _, l := range d.flags.Limits() {
		if f := fs.Lookup(l.Flag); f != nil && f.Changed {
			out = append(out, "--"+l.Flag+" "+f.Value.String())
		}
	}
	if fs.Changed("dead-letter-on-max-retry-attempts") {
		if on, err := fs.GetBool("dead-letter-on-max-retry-attempts"); err == nil {
			out = append(out, fmt.Sprintf("--dead-letter-on-max-retry-attempts=%v", on))
		}
	}
	if len(out) == 0 {
		return "the defaults"
	}
	return strings.Join(out, ", ")
}
