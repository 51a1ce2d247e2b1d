// Package properties holds the property-based suite of the module: rapid throws arbitrary
// policies, PSP fault sequences, payments, interleavings and duplicate senders at the pix client
// and the psp simulator, records what happened on both sides of the wire, and checks the
// invariants of the Retry Pattern over that record. Everything runs in virtual time inside
// testing/synctest bubbles, with the real psp handler served over in-memory pipes (pipenet).
//
// The package has no API: its content is its tests. The invariants are named functions in the
// invariant_*_test.go files; each takes a Trace and returns an error describing the violation,
// or nil, and each is shown to fail on a hand-built trace that violates it.
package properties
