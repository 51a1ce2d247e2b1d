package psp_test

import (
	"testing"

	"github.com/anishathalye/porcupine"
)

// TestKeyModelDecidesSmallHistories reads keyModel's rules off small histories built by hand,
// decided by porcupine as TestPSPIsLinearizable decides the PSP's. Times are logical: a request
// spans [call, ret]. A client that gave up has no ret.
func TestKeyModelDecidesSmallHistories(t *testing.T) {
	const paid, other, legal, illegal = "100.00", "250.00", porcupine.Ok, porcupine.Illegal
	fresh, replayed, inUse, reused := answered(answerFresh), answered(answerReplay), answered(answerInUse),
		answered(answerReused)
	lost, gaveUp, outside := answered(answerLost), answered(answerNone), answered(answerOther)
	h := func(requests ...request) []request { return requests }
	onTokenB := func(ops request) request {
		for i := range ops {
			in := ops[i].Input.(keyInput)
			in.ID.token = "token-b"
			ops[i].Input = in
		}
		return ops
	}
	tests := []struct {
		name     string
		requests []request
		want     porcupine.CheckResult
	}{
		{"a fresh answer, then its replay", h(fresh(1, paid, 1, 2, "201 a"), replayed(2, paid, 3, 4, "201 a")), legal},
		{"a replay of another answer", h(fresh(1, paid, 1, 2, "201 a"), replayed(2, paid, 3, 4, "201 b")), illegal},
		{"a replay to another payload", h(fresh(1, paid, 1, 2, "201 a"), replayed(2, other, 3, 4, "201 a")), illegal},
		{"a replay that nobody stored", h(replayed(1, paid, 1, 2, "201 a")), illegal},
		{"two fresh answers at once", h(fresh(1, paid, 1, 4, "201 a"), fresh(2, paid, 2, 3, "201 b")), illegal},
		{"409 while the first request is in flight", h(fresh(1, paid, 1, 4, "201 a"), inUse(2, paid, 2, 3, "")), legal},
		{"409 after the first request completed", h(fresh(1, paid, 1, 2, "201 a"), inUse(2, paid, 3, 4, "")), illegal},
		{"409 to another payload", h(fresh(1, paid, 1, 4, "201 a"), inUse(2, other, 2, 3, "")), illegal},
		{"409 with no request in flight", h(inUse(1, paid, 1, 2, "")), illegal},
		{"409 beside a client that gave up", h(gaveUp(1, paid, 1, 2, ""), inUse(2, paid, 2, 3, "")), legal},
		{"409 after a lost answer", h(lost(1, paid, 1, 2, ""), inUse(2, paid, 3, 4, "")), illegal},
		{"a replay of what a lost answer stored", h(lost(1, paid, 1, 2, ""), replayed(2, paid, 3, 4, "422 x")), legal},
		{"a replay of what a gave-up client stored", h(gaveUp(1, paid, 1, 2, ""), replayed(2, paid, 2, 3, "201 a")), legal},
		{"a fresh answer after a client that gave up", h(gaveUp(1, other, 1, 2, ""), fresh(2, paid, 2, 3, "201 a")), legal},
		{"422 reused to another payload", h(fresh(1, paid, 1, 2, "201 a"), reused(2, other, 3, 4, "")), legal},
		{"422 reused to the same payload", h(fresh(1, paid, 1, 2, "201 a"), reused(2, paid, 3, 4, "")), illegal},
		{"422 reused on a free key", h(reused(1, other, 1, 2, "")), illegal},
		{"an answer outside the contract", h(outside(1, paid, 1, 2, "503 x")), illegal},
		{"the same key under two tokens", h(fresh(1, paid, 1, 4, "201 a"), onTokenB(fresh(2, paid, 2, 3, "201 b"))), legal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var history []porcupine.Operation
			for _, ops := range tt.requests {
				history = append(history, ops...)
			}
			if got := porcupine.CheckOperationsTimeout(keyModel, history, checkTimeout); got != tt.want {
				t.Errorf("CheckOperations() = %s, want %s", got, tt.want)
			}
		})
	}
}

// request is a request of a hand-built history: its operations as the recorder writes them.
type request = []porcupine.Operation

// answered builds request req of valor on token-a and key k, answered with kind.
func answered(kind answerKind) func(req int, valor string, call, ret int64, answer string) request {
	return func(req int, valor string, call, ret int64, answer string) request {
		in := keyInput{ID: scope{"token-a", "k"}, Request: req, Payload: payload{Valor: valor}}
		return operations(req, in, keyOutput{Kind: kind, Answer: answer}, call, ret)
	}
}
