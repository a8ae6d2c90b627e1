package cli

// Each family package registers its scenarios (and child entry points) in init.
import (
	_ "outboxlab/scenarios/governance"
	_ "outboxlab/scenarios/ordered"
	_ "outboxlab/scenarios/retry"
	_ "outboxlab/scenarios/wassal"
	_ "outboxlab/scenarios/workers"
)
