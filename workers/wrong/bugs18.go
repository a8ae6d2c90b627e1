package main

// bugs18 are Day 18's deliberate mistakes (hosted.go), kept apart from
// bugs.go's list and merged into it: -bug NAME picks one like any other.
// workers/seeds_test.go names the check that must catch each.
var bugs18 = map[string]string{
	"no-renewal":              "Day 18: runs the handler to its end without renewing the lease",
	"renew-no-owner-check":    "Day 18: renews by Id and a live lease only, without the owner and token check",
	"renew-after-expiry":      "Day 18: renews once the lease has ended (its end + 1 ms), without the live-lease guard",
	"unbounded-renewal":       "Day 18: renews for as long as the handler runs, past RENEW_CAP",
	"drain-counts-attempt":    "Day 18: releases at a drain without giving the attempt back",
	"drain-abandons":          "Day 18: says done at a drain, leaving what it holds Processing",
	"tight-poll":              "Day 18: with nothing to claim, looks again 1 ms later",
	"waits-only-for-new-work": "Day 18: with nothing to claim, waits only for new work, not for a lease's end",
}

func init() {
	for name, what := range bugs18 {
		bugs[name] = what
	}
}
