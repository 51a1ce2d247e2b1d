// Package tally is the extended pass's fixture: Sum is tested to the bottom, note runs under
// the tests while none checks what it does, and Reset runs under none.
package tally

import "errors"

// ErrNegative is Sum's answer to a negative value.
var ErrNegative = errors.New("tally: negative value")

var notes []string

// Sum adds vs, and refuses a negative value.
func Sum(vs []int) (int, error) {
	total := 0
	for _, v := range vs {
		if v < 0 {
			return 0, ErrNegative
		}
		total += v
	}
	note("sum")
	return total, nil
}

func note(what string) {
	notes = append(notes, what)
}

// Reset forgets the notes.
func Reset() {
	notes = nil
}
