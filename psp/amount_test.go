package psp_test

import (
	"math"
	"testing"

	"pgregory.net/rapid"

	"pixretry/psp"
)

func TestParseBalance(t *testing.T) {
	tests := []struct {
		in   string
		want int64
	}{
		{"150.00", 15000},
		{"0.00", 0},
		{"00.00", 0},
		{"1000.00", 100000},
		{"0.01", 1},
		{"0150.00", 15000},
		{"1.23", 123},
		{"9999999999.99", 999999999999},
	}
	for _, tt := range tests {
		got, err := psp.ParseBalance(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseBalance(%q) = %d, %v; want %d, nil", tt.in, got, err, tt.want)
		}
	}
}

func TestParseBalanceRejects(t *testing.T) {
	for _, in := range []string{
		"", "1.5", "150", ".50", "1.500", "-1.00", "+1.00", "1,50", " 1.00", "1.00 ",
		"12345678901.00", "1e2", "١.٠٠", "0x1.00", "1.2.3", "1..00", "/.00", "1.0:", "1.00.",
	} {
		if got, err := psp.ParseBalance(in); err == nil || got != 0 {
			t.Errorf("ParseBalance(%q) = %d, %v; want 0 and an error", in, got, err)
		}
	}
}

func TestFormatAmount(t *testing.T) {
	tests := []struct {
		in   int64
		want string
	}{
		{0, "0.00"},
		{5, "0.05"},
		{99, "0.99"},
		{100, "1.00"},
		{15000, "150.00"},
		{999999999999, "9999999999.99"},
		{-150, "-1.50"},
		{-5, "-0.05"},
		{math.MaxInt64, "92233720368547758.07"},
		{math.MinInt64, "-92233720368547758.08"},
	}
	for _, tt := range tests {
		if got := psp.FormatAmount(tt.in); got != tt.want {
			t.Errorf("FormatAmount(%d) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestAmountRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cents := rapid.Int64Range(1, 999999999999).Draw(t, "cents")
		s := psp.FormatAmount(cents)
		got, err := psp.ParseBalance(s)
		if err != nil || got != cents {
			t.Fatalf("ParseBalance(FormatAmount(%d) = %q) = %d, %v", cents, s, got, err)
		}
	})
}
