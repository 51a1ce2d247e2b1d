// Package scenarios holds the PSP simulator's fault scenarios: JSON files, each the body of a
// POST /_psp/faults, that command psp queues at start with -faults and command demo plays.
// README.md, beside them, says what each holds and what a client should do against it.
package scenarios

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"

	"pixretry/psp"
	"pixretry/psp/control"
)

//go:embed *.json
var files embed.FS

// Faults returns the faults of the scenario file NAME.json, such as Faults("lost-answer"), in
// queue order. An unknown name is an error wrapping fs.ErrNotExist.
func Faults(name string) ([]psp.Fault, error) {
	return read(files, name)
}

// read returns the faults of the file NAME.json of fsys. A file that is not a body of POST
// /_psp/faults is an error that names it, with the line, the column and the field of the
// problem, as control.DecodeFaults finds it: "scenarios: NAME.json:LINE:COLUMN: FIELD: REASON".
// For a bad fault it wraps psp.ErrInvalidFault.
func read(fsys fs.FS, name string) ([]psp.Fault, error) {
	data, err := fs.ReadFile(fsys, name+".json")
	if err != nil {
		return nil, fmt.Errorf("scenarios: %w", err)
	}
	faults, err := control.DecodeFaults(data)
	if bad, ok := errors.AsType[*control.FaultsError](err); ok {
		return nil, fmt.Errorf("scenarios: %s.json:%d:%d: %s: %w", name, bad.Line, bad.Column, bad.Field, bad.Err)
	}
	return faults, err
}
