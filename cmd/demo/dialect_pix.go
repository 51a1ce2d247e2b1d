package main

import (
	"context"
	"net/http"
	"strings"
	"time"

	"pixretry/pix"
	"pixretry/psp"
)

// pixDialect is the double's own API (package psp): POST psp.PaymentsPath under an
// Idempotency-Key, answered 201 with the settlement, and GET psp.PaymentsPath with the key as
// psp.LookupParam.
var pixDialect = &dialect{
	Name:          "pix",
	Want:          pixExpectations,
	Precision:     time.Nanosecond,
	Short:         prefix,
	CoreCountsAll: true,
	ProbePath:     psp.PaymentsPath,
	Serve:         func(*psp.Server) (http.Handler, error) { return nil, nil },
	Speak: func(context.Context, *target, *http.Client) (pix.Dialect, readyFunc, error) {
		return nil, nil, nil
	},
	Sort: func(r *http.Request) (requestKind, string) {
		switch {
		case !strings.HasSuffix(r.URL.Path, psp.PaymentsPath):
			return otherRequest, ""
		case r.Method == http.MethodGet:
			return lookupRequest, r.URL.Query().Get(psp.LookupParam)
		}
		return paymentRequest, r.Header.Get(psp.IdempotencyKeyHeader)
	},
}
