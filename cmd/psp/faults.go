package main

import (
	"errors"
	"fmt"
	"os"

	"pixretry/psp/control"
)

// loadFaults reads the faults of the -faults file name, a body of POST /_psp/faults, webhook
// faults included. No name means no faults. The error names the file and, for a problem in it,
// its line and column: "psp: -faults NAME:LINE:COLUMN: FIELD: REASON", in the words of the
// control API's 400.
func loadFaults(name string) (control.Faults, error) {
	if name == "" {
		return control.Faults{}, nil
	}
	data, err := os.ReadFile(name)
	if err != nil {
		return control.Faults{}, fmt.Errorf("psp: -faults: %w", err)
	}
	faults, err := control.DecodeAllFaults(data)
	if bad, ok := errors.AsType[*control.FaultsError](err); ok {
		return control.Faults{}, fmt.Errorf("psp: -faults %s:%d:%d: %s: %w", name, bad.Line, bad.Column, bad.Field, bad.Err)
	}
	return faults, err
}
