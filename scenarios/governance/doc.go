// Package governance holds the governance drain family: poison-message controls,
// both drain modes, fencing and alerts.
package governance
