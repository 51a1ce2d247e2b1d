package main

import (
	"testing"

	"pgregory.net/rapid"
)

func TestFormatCents(t *testing.T) {
	tests := []struct {
		cents int64
		want  string
	}{
		{0, "0.00"},
		{1, "0.01"},
		{99, "0.99"},
		{100, "1.00"},
		{100000, "1000.00"},
		{55001, "550.01"},
		{-1, "-0.01"},
		{-45000, "-450.00"},
	}
	for _, tt := range tests {
		if got := formatCents(tt.cents); got != tt.want {
			t.Errorf("formatCents(%d) = %q, want %q", tt.cents, got, tt.want)
		}
	}
}

func TestParseCents(t *testing.T) {
	tests := []struct {
		in   string
		want int64
	}{
		{"0.00", 0},
		{"0.01", 1},
		{"850.00", 85000},
		{"1000.00", 100000},
		{"9999999999.99", 999999999999},
	}
	for _, tt := range tests {
		got, err := parseCents(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("parseCents(%q) = %d, %v; want %d, nil", tt.in, got, err, tt.want)
		}
	}
}

func TestParseCentsRefuses(t *testing.T) {
	for _, in := range []string{
		"", ".00", "1", "1.0", "1.000", "1,00", "-1.00", "+1.00", " 1.00", "1.00 ", "1.a0", "1.0a",
		"a.00", "1e2.00", "1.-1", "99999999999999999999.00",
	} {
		if got, err := parseCents(in); err == nil {
			t.Errorf("parseCents(%q) = %d, nil; want an error", in, got)
		}
	}
}

func TestCentsRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cents := rapid.Int64Range(0, 1<<62).Draw(t, "cents")
		got, err := parseCents(formatCents(cents))
		if err != nil || got != cents {
			t.Fatalf("parseCents(formatCents(%d)) = %d, %v", cents, got, err)
		}
	})
}
