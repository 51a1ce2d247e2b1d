package main

import (
	"strings"
	"testing"
	"time"
)

// In Open Finance pixpay makes each payment's endToEndId, of its own ISPB, and the double's
// ledger holds the one each intent records (check compares them, as in every dialect).
func TestOpenFinanceLedgerHoldsTheEndToEndIDsPixpayMakes(t *testing.T) {
	t.Parallel()
	s := ofScenario(t, time.Hour, nil)
	s.add("a", 101)
	s.add("b", 102)
	s.finish()
	intents := s.check()
	ledger := map[string]string{} // endToEndId by key
	for _, st := range s.srv.Settlements() {
		ledger[st.IdempotencyKey] = st.EndToEndID
	}
	for _, id := range []string{"a", "b"} {
		in := intents[id]
		if !strings.HasPrefix(in.EndToEndID, "E"+initiatorISPB) || ledger[in.Key] != in.EndToEndID {
			t.Errorf("intent %s records endToEndId %q, the ledger %q; want the same, of ISPB %s", id, in.EndToEndID,
				ledger[in.Key], initiatorISPB)
		}
	}
}
