// Package properties is the property-based suite of the module. rapid throws arbitrary
// policies, PSP faults, payments, interleavings and duplicate senders at the pix client and the
// psp simulator. The suite records what happened on both sides of the wire and checks the
// invariants of the Retry Pattern over that record. Everything runs in virtual time inside
// testing/synctest bubbles, with the real psp handler served over in-memory pipes.
//
// The package has no API, only tests. Each invariant is a function in an invariant_*_test.go
// file that takes a Trace and returns an error naming every violation. Each is shown to fail
// on a hand-built trace that violates it. docs/properties.md is the guide.
package properties
