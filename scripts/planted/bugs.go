package main

// bugs are the realistic bugs that passed the property suite, or make test, before issue 20
// closed each gap. Each edit is the smallest one that makes the bug.
var bugs = []bug{
	{
		Name:    "pix takes a connection that failed before any answer byte as permanent",
		File:    "pix/lostconn.go",
		Old:     "_, lost := errors.AsType[*lostConnError](err)\n\treturn lost || retry.Transient(err)",
		New:     "return retry.Transient(err)",
		Package: "./properties/",
		Run:     "^TestBrokenConnectionsKeepInvariants$",
		Catcher: "invariant 11: a transient failure, a lost connection included, is retried",
	},
	{
		Name:    "pix takes any connection failure, not only a refused dial, as proof that nothing settled",
		File:    "pix/send.go",
		Old:     "e, ok := errors.AsType[*net.OpError](err)\n\treturn ok && e.Op == \"dial\"",
		New:     "_, ok := errors.AsType[*net.OpError](err)\n\treturn ok",
		Package: "./properties/",
		Run:     "^TestBrokenConnectionsKeepInvariants$",
		Catcher: "invariant 7: not ErrOutcomeUnknown means not paid",
	},
	{
		Name:    "the demo no longer clears the PSP's faults between scenarios",
		File:    "cmd/demo/demo.go",
		Old:     "\tif err := ctl.ClearFaults(ctx); err != nil {\n\t\treturn r, err\n\t}\n",
		New:     "",
		Package: "./cmd/demo/",
		Run:     "^TestFaultsDoNotLeakIntoTheNextScenario$",
		Catcher: "faults left queued strike the next scenario",
	},
	{
		Name:    "pix takes a 409 as proof that nothing was paid",
		File:    "pix/send.go",
		Old:     "e.Status/100 == 4 && e.Status != http.StatusConflict && e.Status != http.StatusTooManyRequests",
		New:     "e.Status/100 == 4 && e.Status != http.StatusTooManyRequests",
		Package: "./properties/",
		Run:     "^(TestOnePaymentKeepsInvariants|TestInterleavedPaymentsKeepInvariants|TestGatewayAnswersKeepInvariants)$",
		Catcher: "invariant 7, once a duplicated request makes a fresh key's 409 real",
	},
	{
		Name:    "retry ignores the server's Retry-After hint when it waits",
		File:    "retry/do.go",
		Old:     "wait := max(FullJitter(Ceiling(p, n), c.rand()), hint)",
		New:     "wait := FullJitter(Ceiling(p, n), c.rand())",
		Package: "./properties/",
		Run:     "^(TestOnePaymentKeepsInvariants|TestDoFollowsItsModel)$",
		Catcher: "invariant 5: each wait is max(FullJitter(ceiling, u), hint)",
	},
	{
		Name:    "retry draws its jitter over the uncapped exponential delay",
		File:    "retry/do.go",
		Old:     "wait := max(FullJitter(Ceiling(p, n), c.rand()), hint)",
		New:     "wait := max(FullJitter(p.DelayBase<<(n-1), c.rand()), hint)",
		Package: "./properties/",
		Run:     "^(TestOnePaymentKeepsInvariants|TestDoFollowsItsModel)$",
		Catcher: "invariant 5, and the model of retry.Do: a wait never passes DelayMax",
	},
	{
		Name:    "pix resends a key past the TTL",
		File:    "pix/deadline.go",
		Old:     "return first.Add(c.keyWindow())",
		New:     "return time.Now().Add(c.keyWindow())",
		Package: "./cmd/pixpay/",
		Run:     "^TestKeyTTLScenarios$",
		Catcher: "the scenarios: a key resent once the PSP forgot it pays twice, against the ledger",
	},
}
