package psp_test

import "pgregory.net/rapid"

// amountGen draws an amount in cents: affordable from balance, at its edge, or beyond it.
func amountGen(balance int64) *rapid.Generator[int64] {
	return rapid.OneOf(
		rapid.Int64Range(1, max(balance, 1)),
		rapid.Int64Range(max(balance-2, 1), balance+2),
		rapid.Int64Range(1, 2*balance+2),
	)
}
