// Package ordered holds the dead letters and ordered messages family: the three
// damages and the five remedies.
package ordered
