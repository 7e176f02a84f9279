// Package hashring maps keys to weighted nodes with consistent hashing: exact
// weighted balance, near-optimal movement when the membership changes, and O(1)
// lock-free lookups.
//
// Design notes and measured figures follow in the final version of this file.
package hashring
