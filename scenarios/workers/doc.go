// Package workers holds the worker throughput family: how many messages per
// second a drain finishes, what more workers gain, and what overload looks like.
package workers
