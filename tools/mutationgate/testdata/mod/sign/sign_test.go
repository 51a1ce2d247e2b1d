package sign

import "testing"

func TestSign(t *testing.T) {
	for n, want := range map[int]int{-2: -1, -1: -1, 0: 0, 1: 1, 2: 1} {
		if got := Sign(n); got != want {
			t.Errorf("Sign(%d) = %d, want %d", n, got, want)
		}
	}
}
