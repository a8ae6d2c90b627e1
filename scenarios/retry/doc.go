// Package retry holds the "Poison Messages and Retry" family: the poison-message
// counter, backoff schedules, the jitter wave, and the retry pairs the seed argues in prose.
package retry
