// Package sign is the gate's fixture of a switch whose tests kill every mutant of its case
// conditions, which gremlins nonetheless reports NOT COVERED.
package sign

// Sign returns -1 for a negative n, 1 for a positive n, and 0 for zero.
func Sign(n int) int {
	switch {
	case n < 0:
		return -1
	case n > 0:
		return 1
	}
	return 0
}
