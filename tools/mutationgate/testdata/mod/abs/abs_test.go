package abs

import "testing"

func TestAbs(t *testing.T) {
	for n, want := range map[int]int{-3: 3, 0: 0, 4: 4} {
		if got := Abs(n); got != want {
			t.Errorf("Abs(%d) = %d, want %d", n, got, want)
		}
	}
}

func TestAbsOfZero(t *testing.T) {
	if got := Abs(0); got != 0 {
		t.Errorf("Abs(0) = %d, want 0", got)
	}
}
