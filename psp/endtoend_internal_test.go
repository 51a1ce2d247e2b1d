package psp

import (
	"context"
	"strconv"
	"testing"
	"time"
)

func TestWithEndToEndIDTakesPaymentsV4sPattern(t *testing.T) {
	for _, id := range []string{
		"E" + "00000000" + "000001010000" + "00000000000", // the least of each part
		"E" + "99999999" + "999912312359" + "zzzzzzzzzzz", // the greatest
		"E" + "12345678" + "202612071230" + "AZaz09AZaz0",
		"E" + "12345678" + "202610192000" + "abcdefghijk", // month 10, day 19, hour 20
		"E" + "12345678" + "202602291959" + "ABCDEFGHIJK", // day 29, hour 19
		newEndToEndID("12345678", time.Date(2026, 12, 7, 23, 59, 0, 0, time.UTC)),
	} {
		if got := givenEndToEndID(WithEndToEndID(context.Background(), id)); got != id {
			t.Errorf("givenEndToEndID(WithEndToEndID(%q)) = %q, want it", id, got)
		}
	}
}

func TestWithEndToEndIDPanicsOnAnotherID(t *testing.T) {
	for _, tt := range []struct{ name, id string }{
		{"empty", ""},
		{"10 characters at the end", "E12345678202612071230abcdefghij"},
		{"12 characters at the end", "E12345678202612071230abcdefghijkl"},
		{"a lower-case e", "e12345678202612071230abcdefghijk"},
		{"a letter in the ISPB", "E1234567a202612071230abcdefghijk"},
		{"a letter in the year", "E12345678a02612071230abcdefghijk"},
		{"month 00", "E12345678202600071230abcdefghijk"},
		{"month 13", "E12345678202613071230abcdefghijk"},
		{"month 20", "E12345678202620071230abcdefghijk"},
		{"day 00", "E12345678202612001230abcdefghijk"},
		{"day 32", "E12345678202612321230abcdefghijk"},
		{"day 40", "E12345678202612401230abcdefghijk"},
		{"hour 24", "E12345678202612072430abcdefghijk"},
		{"hour 30", "E12345678202612073030abcdefghijk"},
		{"minute 60", "E12345678202612071260abcdefghijk"},
		{"a hyphen at the end", "E12345678202612071230abcdefghij-"},
		{"a space before", " E12345678202612071230abcdefghijk"},
		{"a newline after", "E12345678202612071230abcdefghijk\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				want := "psp: WithEndToEndID: " + strconv.Quote(tt.id) +
					" is not E, an 8-digit ISPB, yyyyMMddHHmm and 11 letters or digits"
				if got := recover(); got != want {
					t.Errorf("WithEndToEndID(%q) panicked with %v, want %q", tt.id, got, want)
				}
			}()
			WithEndToEndID(context.Background(), tt.id)
		})
	}
}

func TestGivenEndToEndIDIsEmptyWithoutOne(t *testing.T) {
	if got := givenEndToEndID(context.Background()); got != "" {
		t.Errorf("givenEndToEndID(Background) = %q, want \"\"", got)
	}
}
