package psp

import (
	"math"
	"testing"
)

func TestBase36(t *testing.T) {
	tests := []struct {
		n    uint64
		want string
	}{
		{0, "00000000000"},
		{35, "0000000000z"},
		{36, "00000000010"},
		{36*36*36 - 1, "00000000zzz"},
		{131621703842267135, "zzzzzzzzzzz"}, // 36^11 - 1
		{131621703842267136, "00000000000"}, // 36^11: the sequence wraps
		{math.MaxUint64, "5e11264sgsf"},     // the low 11 digits of 3w5e11264sgsf
	}
	for _, tt := range tests {
		if got := base36(tt.n); got != tt.want {
			t.Errorf("base36(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}
