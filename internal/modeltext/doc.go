// Package modeltext writes graphs, deltas and site indexes for a language
// model to read. Placeholder; documented in a following commit.
package modeltext
