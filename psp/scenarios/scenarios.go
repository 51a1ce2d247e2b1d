// Package scenarios holds the PSP simulator's fault scenarios: JSON files, each the body of a
// POST /_psp/faults, that command psp queues at start with -faults and command demo plays.
// README.md, beside them, says what each holds and what a client should do against it.
package scenarios

import (
	"embed"
	"fmt"

	"pixretry/psp"
	"pixretry/psp/control"
)

//go:embed *.json
var files embed.FS

// Faults returns the faults of the scenario file NAME.json, such as Faults("lost-answer"), in
// queue order. An unknown name is an error wrapping fs.ErrNotExist.
func Faults(name string) ([]psp.Fault, error) {
	data, err := files.ReadFile(name + ".json")
	if err != nil {
		return nil, fmt.Errorf("scenarios: %w", err)
	}
	return control.DecodeFaults(data)
}
