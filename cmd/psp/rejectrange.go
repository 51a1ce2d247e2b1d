package main

import (
	"errors"
	"strings"

	"pixretry/psp"
)

// amountRange is the value of -reject-range: the lowest and the highest valor rejected, in
// cents, both included, as in 10.01-20.00. Its zero value is no range.
type amountRange struct{ from, to int64 }

func (r amountRange) String() string {
	if r == (amountRange{}) {
		return ""
	}
	return psp.FormatAmount(r.from) + "-" + psp.FormatAmount(r.to)
}

func (r *amountRange) Set(s string) error {
	low, high, _ := strings.Cut(s, "-")
	from, errFrom := psp.ParseBalance(low)
	to, errTo := psp.ParseBalance(high)
	switch {
	case errFrom != nil || errTo != nil:
		return errors.New("want the lowest and the highest valor rejected, each 1 to 10 digits, a dot and 2 digits, " +
			"joined by a hyphen, as in 10.01-20.00")
	case to == 0 || from > to:
		return errors.New("want the lowest valor first and a highest above 0.00, as in 10.01-20.00")
	}
	*r = amountRange{from, to}
	return nil
}
