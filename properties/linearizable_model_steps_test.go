package properties_test

import (
	"testing"

	"github.com/anishathalye/porcupine"
)

// TestKeyModelDecidesSmallHistories reads keyModel's rules off small histories, each built by
// hand and decided by porcupine as TestPSPIsLinearizable decides the PSP's. Times are logical:
// a request spans [call, ret]; ret never is a client that gave up.
func TestKeyModelDecidesSmallHistories(t *testing.T) {
	const paid, other = "100.00", "250.00"
	tests := []struct {
		name    string
		history [][]porcupine.Operation
		want    porcupine.CheckResult
	}{
		{"a fresh answer, then its replay", h(fresh(1, paid, 1, 2, "201 a"), replayed(2, paid, 3, 4, "201 a")), ok},
		{"a replay of another answer", h(fresh(1, paid, 1, 2, "201 a"), replayed(2, paid, 3, 4, "201 b")), bad},
		{"a replay to another payload", h(fresh(1, paid, 1, 2, "201 a"), replayed(2, other, 3, 4, "201 a")), bad},
		{"a replay that nobody stored", h(replayed(1, paid, 1, 2, "201 a")), bad},
		{"two fresh answers at once", h(fresh(1, paid, 1, 4, "201 a"), fresh(2, paid, 2, 3, "201 b")), bad},
		{"409 while the first request is in flight", h(fresh(1, paid, 1, 4, "201 a"), inUse(2, paid, 2, 3)), ok},
		{"409 after the first request completed", h(fresh(1, paid, 1, 2, "201 a"), inUse(2, paid, 3, 4)), bad},
		{"409 to another payload", h(fresh(1, paid, 1, 4, "201 a"), inUse(2, other, 2, 3)), bad},
		{"409 with no request in flight", h(inUse(1, paid, 1, 2)), bad},
		{"409 beside a client that gave up", h(gaveUp(1, paid, 1), inUse(2, paid, 2, 3)), ok},
		{"409 after a lost answer", h(lost(1, paid, 1, 2), inUse(2, paid, 3, 4)), bad},
		{"a replay of what a lost answer stored", h(lost(1, paid, 1, 2), replayed(2, paid, 3, 4, "422 x")), ok},
		{"a replay of what a client that gave up stored", h(gaveUp(1, paid, 1), replayed(2, paid, 2, 3, "201 a")), ok},
		{"a fresh answer after a client that gave up", h(gaveUp(1, other, 1), fresh(2, paid, 2, 3, "201 a")), ok},
		{"422 reused to another payload", h(fresh(1, paid, 1, 2, "201 a"), reused(2, other, 3, 4)), ok},
		{"422 reused to the same payload", h(fresh(1, paid, 1, 2, "201 a"), reused(2, paid, 3, 4)), bad},
		{"422 reused on a free key", h(reused(1, other, 1, 2)), bad},
		{"an answer outside the contract", h(answered(1, paid, 1, 2, answerOther, "503 x")), bad},
		{"the same key under two tokens", h(fresh(1, paid, 1, 4, "201 a"),
			onToken("token-b", fresh(2, paid, 2, 3, "201 b"))), ok},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var history []porcupine.Operation
			for _, ops := range tt.history {
				history = append(history, ops...)
			}
			if got := porcupine.CheckOperationsTimeout(keyModel, history, checkTimeout); got != tt.want {
				t.Errorf("CheckOperations() = %s, want %s", got, tt.want)
			}
		})
	}
}

// The verdicts.
const (
	ok  = porcupine.Ok
	bad = porcupine.Illegal
)

// h is a history of requests.
func h(requests ...[]porcupine.Operation) [][]porcupine.Operation { return requests }

// answered is request req of payload on token-a and key k, sent at call, answered at ret, as
// the recorder writes it down.
func answered(req int, payload string, call, ret int64, kind answerKind, answer string) []porcupine.Operation {
	in := keyInput{ID: keyID{Token: "token-a", Key: "k"}, Request: req, Payload: payload}
	return operations(req, in, keyOutput{Kind: kind, Answer: answer}, call, ret)
}

func fresh(req int, payload string, call, ret int64, answer string) []porcupine.Operation {
	return answered(req, payload, call, ret, answerFresh, answer)
}

func replayed(req int, payload string, call, ret int64, answer string) []porcupine.Operation {
	return answered(req, payload, call, ret, answerReplay, answer)
}

func inUse(req int, payload string, call, ret int64) []porcupine.Operation {
	return answered(req, payload, call, ret, answerInUse, "")
}

func reused(req int, payload string, call, ret int64) []porcupine.Operation {
	return answered(req, payload, call, ret, answerReused, "")
}

func lost(req int, payload string, call, ret int64) []porcupine.Operation {
	return answered(req, payload, call, ret, answerLost, "")
}

// gaveUp is a request whose client gave up: operations gives it no return.
func gaveUp(req int, payload string, call int64) []porcupine.Operation {
	return answered(req, payload, call, call+1, answerNone, "")
}

// onToken moves a request to token.
func onToken(token string, ops []porcupine.Operation) []porcupine.Operation {
	for i := range ops {
		in := ops[i].Input.(keyInput)
		in.ID.Token = token
		ops[i].Input = in
	}
	return ops
}
