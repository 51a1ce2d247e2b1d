package properties

import (
	"testing"
	"time"

	"pgregory.net/rapid"

	"pixretry/internal/pipenet"
	"pixretry/psp"
	"pixretry/psp/psptest"
	"pixretry/retry"
	"pixretry/retry/retrytest"
)

// A line that breaks connections (pipenet.Line) or a gateway that answers first
// (psptest.Gateway) stands between the clients and the PSP in some runs.

// lineStepGen draws a step of the line: nothing, or a break. A cut after the write, which hides
// a settlement, comes most often. Half the breaks of a connection wait for a pooled one.
func lineStepGen() *rapid.Generator[pipenet.Step] {
	return rapid.Custom(func(t *rapid.T) pipenet.Step {
		f := rapid.SampledFrom([]pipenet.Fault{pipenet.Intact, pipenet.Refused, pipenet.NoSuchHost, pipenet.CutBeforeWrite,
			pipenet.CutAfterWrite, pipenet.CutAfterWrite, pipenet.ClosedIdle}).Draw(t, "fault")
		pooled := f != pipenet.Intact && !f.FailsDial() && rapid.Bool().Draw(t, "waits for a pooled connection")
		return pipenet.Step{Fault: f, PooledOnly: pooled}
	})
}

// cutsAfterWriteGen draws a line that cuts each of its 1 to 8 connections after the request was
// written: every attempt it reaches may settle, the last one included, and none can tell.
func cutsAfterWriteGen() *rapid.Generator[[]pipenet.Step] {
	return rapid.SliceOfN(rapid.Custom(func(t *rapid.T) pipenet.Step {
		return pipenet.Step{Fault: pipenet.CutAfterWrite, PooledOnly: rapid.Bool().Draw(t, "waits for a pooled connection")}
	}), 1, 8)
}

// breaksBeforeWriteGen draws a run whose attempts meet, in turn, a failed dial, a cut on a
// fresh connection before the request is written, an intact connection answered 503 (it stays
// in the pool), and a break of that pooled connection before the retry is written (a cut or an
// idle close). Drawn freely, breaks before the write fall in a few runs in a hundred, too few
// for the coverage check to expect them.
func breaksBeforeWriteGen(sc *rapid.Generator[scenario]) *rapid.Generator[scenario] {
	return rapid.Custom(func(t *rapid.T) scenario {
		s := sc.Draw(t, "scenario")
		dial := rapid.SampledFrom([]pipenet.Fault{pipenet.Refused, pipenet.NoSuchHost}).Draw(t, "failed dial")
		pooled := rapid.SampledFrom([]pipenet.Fault{pipenet.CutBeforeWrite, pipenet.ClosedIdle}).Draw(t, "pooled break")
		s.Policy.AttemptsMax = max(s.Policy.AttemptsMax, 4)
		s.Faults = append([]psp.Fault{psp.Status(503)}, s.Faults...)
		s.Line = []pipenet.Step{{Fault: dial}, {Fault: pipenet.CutBeforeWrite}, {Fault: pipenet.Intact},
			{Fault: pooled, PooledOnly: true}}
		return s
	})
}

// TestBrokenConnectionsKeepInvariants: the runs of TestOnePaymentKeepsInvariants or
// TestInterleavedPaymentsKeepInvariants, over a line that breaks connections, keep every
// invariant. Each break falls on a fresh or a pooled connection, mixed with every PSP fault. A
// failure after the write may hide a settlement: it never ends a call as a definitive failure.
func TestBrokenConnectionsKeepInvariants(t *testing.T) {
	drawn := rapid.Custom(func(t *rapid.T) scenario {
		sc := rapid.OneOf(onePaymentScenarios(), interleavedScenarios()).Draw(t, "scenario")
		sc.Line = rapid.OneOf(rapid.SliceOfN(lineStepGen(), 1, 8), cutsAfterWriteGen()).Draw(t, "line")
		return sc
	})
	checkRuns(t, rapid.OneOf(drawn, breaksBeforeWriteGen(onePaymentScenarios())), "line: refused", "line: no such host", "line: cut before write, fresh connection",
		"line: cut before write, pooled connection", "line: cut after write, fresh connection",
		"line: cut after write, pooled connection", "line: closed while idle, pooled connection",
		"call: outcome unknown", "call: settled on a replay")
}

// gatewayGen draws a gateway's answer: pass on, or a status from 400 to 599 (409, 429, 501, 503
// and 505 often). Its Retry-After is none, or seconds or an HTTP-date: past, near, or beyond
// DelayMax.
func gatewayGen(p retry.Policy) *rapid.Generator[psptest.GatewayAnswer] {
	return rapid.OneOf(rapid.Just(psptest.GatewayAnswer{}), rapid.Custom(func(t *rapid.T) psptest.GatewayAnswer {
		a := psptest.GatewayAnswer{
			Status: rapid.OneOf(rapid.IntRange(400, 599), rapid.SampledFrom([]int{409, 429, 501, 503, 505})).
				Draw(t, "gateway status"),
			RetryAfter: rapid.SampledFrom([]string{"", "seconds", "date", "date"}).Draw(t, "gateway Retry-After"),
		}
		if rapid.IntRange(0, 5).Draw(t, "gateway header too long") == 0 {
			a.HeaderBytes = headerLimit + 1
		}
		if a.RetryAfter != "" {
			a.After = rapid.OneOf(retrytest.Durations(-time.Hour, -time.Second), retrytest.Millis(0, 3000),
				retrytest.Durations(p.DelayMax+time.Second, p.DelayMax+time.Hour)).Draw(t, "gateway hint")
		}
		return a
	}))
}

// TestGatewayAnswersKeepInvariants: the runs of TestOnePaymentKeepsInvariants behind a gateway
// that answers some requests itself keep every invariant. The gateway answers any status, with
// Retry-After in seconds or as an HTTP-date, mixed with every PSP fault.
func TestGatewayAnswersKeepInvariants(t *testing.T) {
	checkRuns(t, rapid.Custom(func(t *rapid.T) scenario {
		sc := onePaymentScenarios().Draw(t, "scenario")
		sc.Gateway = rapid.SliceOfN(gatewayGen(sc.Policy), 1, 6).Draw(t, "gateway")
		return sc
	}), "answer: Retry-After as an HTTP-date", "answer: header too long", "call: retried", "call: settled",
		"call: outcome unknown")
}
