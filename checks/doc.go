// Package checks holds fpcheck's ports of the Context Integrity checks: one
// descriptor value per check, registered in one explicit ordered list, plus
// the finding model, its identity, the disposition ledger and the
// declarations that arm the checks. Checks return findings and dispositions;
// they never print.
package checks
