package main

import (
	"context"
	"net/http"
	"path"
	"strings"
	"time"

	"pixretry/pix"
	"pixretry/pix/efi"
	"pixretry/psp"
	efidouble "pixretry/psp/efi"
)

// efiDialect is Efí's Pix payouts (packages pix/efi and psp/efi): PUT efidouble.SendPath+idEnvio,
// answered 201 EM_PROCESSAMENTO, and GET efidouble.LookupPath+idEnvio. The client pays from the
// double's one payer, efidouble.PayerKey. Times carry milliseconds.
var efiDialect = &dialect{
	Name:          "efi",
	Want:          efiExpectations,
	Precision:     time.Millisecond,
	Short:         prefix,
	CoreCountsAll: true,
	ProbePath:     efidouble.SendPath + "probe",
	Serve:         func(srv *psp.Server) (http.Handler, error) { return efidouble.NewHandler(srv), nil },
	Speak: func(context.Context, *target, *http.Client) (pix.Dialect, readyFunc, error) {
		return efi.Dialect{PayerKey: efidouble.PayerKey}, nil, nil
	},
	Sort: func(r *http.Request) (requestKind, string) {
		switch {
		case r.Method == http.MethodGet && strings.Contains(r.URL.Path, efidouble.LookupPath):
			return lookupRequest, path.Base(r.URL.Path)
		case r.Method == http.MethodPut && strings.Contains(r.URL.Path, efidouble.SendPath):
			return paymentRequest, path.Base(r.URL.Path)
		}
		return otherRequest, ""
	},
}
