// Package grade is the gate's fixture: a switch whose case conditions Go's coverage does not
// count, so that gremlins reports their mutants NOT COVERED although the tests run them.
package grade

// Grade says "pass" from 50 points up, "fail" below, and "invalid" below 0.
func Grade(points int) string {
	switch {
	case points < 0:
		return "invalid"
	case points >= 50:
		return "pass"
	}
	return "fail"
}

// Passed says whether points pass.
func Passed(points int) bool {
	return points >= 50
}
