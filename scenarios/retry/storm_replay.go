package retry

import "time"

// breakerReplay is what the course's breaker rule says of a gateway ledger:
// closed until failuresToOpen consecutive failed calls, then open for a
// cooldown from the last failure's answer, then one probe, whose success
// closes it and whose failure opens it for another cooldown. It is written
// apart from core/breaker and reads only the gateway's ledger, so the checks
// judge what the consumer did to the gateway, not what its breaker recorded.
type breakerReplay struct {
	opens          int // closed → open and failed probes
	probes         int
	failedProbes   int
	whileOpen      int // calls made while the rule says the breaker was open
	tripping       int // failed calls during the outage made while it was closed
	outageProbes   int // failed probes during the outage
	closedAt       time.Time
	closedRecovery bool           // the last probe closed it, at or after recovery
	failedProbesOf map[string]int // failed probes per message key
}

// replayBreaker runs the rule over ledger; calls are split by phase with
// outage, the window the gateway was down.
func replayBreaker(ledger []send, failuresToOpen int, cooldown time.Duration, outage phase) breakerReplay {
	r := breakerReplay{failedProbesOf: map[string]int{}}
	open, failures := false, 0
	var reopens time.Time
	for _, s := range ledger {
		during := outage.holds(s.at)
		if !open {
			if s.ok {
				failures = 0
				continue
			}
			failures++
			if during {
				r.tripping++
			}
			if failures >= failuresToOpen {
				open, reopens = true, s.done.Add(cooldown)
				r.opens++
				r.closedRecovery = false
			}
			continue
		}
		if s.at.Before(reopens) {
			r.whileOpen++
			continue
		}
		r.probes++
		if s.ok {
			open, failures = false, 0
			r.closedAt, r.closedRecovery = s.done, !s.at.Before(outage.to)
			continue
		}
		r.failedProbes++
		r.failedProbesOf[s.key]++
		r.closedRecovery = false
		if during {
			r.outageProbes++
		}
		reopens = s.done.Add(cooldown)
		r.opens++
	}
	return r
}
