// Package abs is the fixture of a package whose tests catch a mutant of another package
// (sign) that it builds on.
package abs

import "fixture/sign"

// Abs returns the absolute value of n.
func Abs(n int) int {
	return sign.Sign(n) * n
}
