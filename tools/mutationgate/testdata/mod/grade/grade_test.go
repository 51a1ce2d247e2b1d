package grade

import "testing"

// The tests check every case but no boundary: the mutants that negate a condition are killed,
// and the three that move a boundary (< to <=, >= to >) live.
func TestGrade(t *testing.T) {
	for points, want := range map[int]string{-7: "invalid", 10: "fail", 90: "pass"} {
		if got := Grade(points); got != want {
			t.Errorf("Grade(%d) = %q, want %q", points, got, want)
		}
		if got, want := Passed(points), want == "pass"; got != want {
			t.Errorf("Passed(%d) = %v, want %v", points, got, want)
		}
	}
}
