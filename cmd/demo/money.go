package main

import (
	"fmt"
	"strconv"
)

// formatCents writes an amount of integer cents the way the PSP's wire does: "1000.00".
// A negative amount gets a leading minus sign.
func formatCents(cents int64) string {
	sign := ""
	if cents < 0 {
		sign, cents = "-", -cents
	}
	return fmt.Sprintf("%s%d.%02d", sign, cents/100, cents%100)
}

// parseCents reads a non-negative amount in the PSP's wire form (digits, a dot, two digits)
// as integer cents, never through a float. Anything else is an error.
func parseCents(s string) (int64, error) {
	dot := len(s) - 3
	if dot < 1 || s[dot] != '.' || !digits(s[:dot]) || !digits(s[dot+1:]) {
		return 0, fmt.Errorf("demo: amount %q is not of the form 123.45", s)
	}
	units, err := strconv.ParseInt(s[:dot]+s[dot+1:], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("demo: amount %q: %w", s, err)
	}
	return units, nil
}

// digits reports whether s is made of ASCII digits only.
func digits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
