package tally

import (
	"errors"
	"testing"
)

func TestSum(t *testing.T) {
	if got, err := Sum([]int{1, 2, 3}); got != 6 || err != nil {
		t.Errorf("Sum(1, 2, 3) = %d, %v; want 6, nil", got, err)
	}
	if _, err := Sum([]int{1, -1}); !errors.Is(err, ErrNegative) {
		t.Errorf("Sum(1, -1) error = %v, want %v", err, ErrNegative)
	}
}
