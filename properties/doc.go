// Package properties is the property-based suite of the module. rapid throws arbitrary
// policies, PSP faults, payments, interleavings, duplicate senders, pauses past the lifetime of
// a key, payments that complete later and the PSP's webhooks, forged ones among them, at the pix
// client, the psp simulator and a webhook receiver. The suite records what happened on both
// sides of the wire, pairing each round trip with the request it became by the number it
// carries, and checks the invariants of the Retry Pattern over that record. Everything runs in
// virtual time inside testing/synctest bubbles, with the real psp handler served over in-memory
// pipes by psp/psptest.
//
// The package has no API, only tests. Each invariant lives in invariant_NAME_test.go: its
// statement, its check over a Trace, its own helpers, and violations planted by named
// constructors in the trace of one fixed run to show that it can fail. Besides its own file, a
// reader needs only trace_test.go (the Trace), oracle_test.go (the rules several invariants
// share) and planted_test.go (violations, the baseline run, the shared constructors). The
// properties of retry alone, of psp alone and of pix alone live in those packages.
// docs/properties.md is the guide.
package properties
