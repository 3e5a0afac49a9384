// Package replay folds a run's events, in order, into the seam views the
// checks judge, runs every registered check over them, and reconciles what
// the checks find now with what the live run recorded. It also reads the
// recorded evidence itself: the context_error findings and the last
// disposition ledger a run carried.
package replay
