package properties

// checkMoney is invariant 9: money is conserved. The final balance is the initial balance less
// the sum of the settlements; every settlement moved a positive amount; and the balance never
// went below zero, replaying the ledger in order.
func checkMoney(tr Trace) error {
	var v violations
	balance := tr.BalanceStart
	for _, s := range tr.Ledger {
		if s.AmountCents <= 0 {
			v.addf("settlement %s moved %d cents", s.EndToEndID, s.AmountCents)
		}
		balance -= s.AmountCents
		if balance < 0 {
			v.addf("settlement %s took the balance to %d cents", s.EndToEndID, balance)
		}
	}
	if balance != tr.BalanceEnd {
		v.addf("balance %d − settlements = %d cents, the PSP reports %d", tr.BalanceStart, balance, tr.BalanceEnd)
	}
	if tr.BalanceEnd < 0 {
		v.addf("final balance %d cents is negative", tr.BalanceEnd)
	}
	return v.err()
}

// moneyPlanted are violations of this invariant, planted in the baseline trace.
var moneyPlanted = []planted{
	{"a balance that lost a cent", "the PSP reports 84999", func(tr *Trace) { tr.BalanceEnd = 84_999 }},
	{"a settlement of no money", "moved 0 cents",
		func(tr *Trace) { tr.Ledger[0].AmountCents, tr.BalanceEnd = 0, 100_000 }},
	{"a balance below zero", "took the balance to -5000",
		func(tr *Trace) { tr.BalanceStart, tr.BalanceEnd = 10_000, -5_000 }},
}
