package psp_test

import (
	"fmt"
	"maps"
	"slices"

	"github.com/anishathalye/porcupine"
)

// keyModel is the sequential contract of one token and key, for porcupine and pspMachine. A key
// starts free. The first request reserves it (in flight), then completes it with its answer: 201,
// or 422 insufficient_funds. The same payload then gets that answer, byte for byte, as a replay.
// The same payload gets 409 only while the key is in flight. Another payload gets 422
// idempotency_key_reused once the key is taken. No other answer is allowed.
//
// A fresh answer is two operations over its interval, a reserve and a commit, so that a 409 can
// fall between them. A request without an answer takes the key if it finds it free, and changes
// nothing otherwise. A drop loses the answer after processing, so its steps lie within the
// request. A client that gave up has no return time: its steps may come after everything else.
// Keys are independent, so the model is partitioned by token and key. The shared balance stays
// outside: any first request may settle or be refused.
//
// A payment accepted pending (202, then REALIZADO or NAO_REALIZADO) is outside keyModel: its
// stored answer changes at an instant of the PSP's clock, not at a request, and porcupine orders
// requests, not clocks. So TestPSPIsLinearizable leaves no payment pending, and classify calls a
// 202 an answer no request may get. TestPSPMatchesModel, which runs one request at a time in
// virtual time, checks pending payments against pspModel, and judges each replay with stepKey
// against the answer stored since the payment was accepted, or since it ended.
var keyModel = porcupine.Model{
	Partition: partitionByKey,
	Init:      func() any { return keyState{} },
	Step: func(state, input, output any) (bool, any) {
		return stepKey(state.(keyState), input.(keyInput), output.(keyOutput))
	},
}

// keyStep is the part of a request that an operation stands for.
type keyStep int

const (
	stepReserve keyStep = iota // the first half of a request that took the key: free to in flight
	stepCommit                 // its second half: in flight to complete, with the answer
	stepObserve                // a request that met a taken key: a replay, a 409 or a 422 reused
)

// keyInput is what a request asked.
type keyInput struct {
	ID      scope
	Request int     // the request, shared by its reserve and its commit
	Step    keyStep // which part of the request this operation is
	Payload payload
}

// answerKind is how the contract classes an answer.
type answerKind int

const (
	answerFresh  answerKind = iota // 201 or 422 insufficient_funds, not marked as a replay
	answerReplay                   // any answer marked Idempotent-Replayed: true
	answerInUse                    // 409 idempotency_key_in_use
	answerReused                   // 422 idempotency_key_reused
	answerLost                     // the connection closed without an answer, after processing
	answerNone                     // the client gave up: the request may take effect now, later or never
	answerOther                    // any other answer, which no request here may get
)

// keyOutput is what a request got.
type keyOutput struct {
	Kind   answerKind
	Answer string // the status and body of a fresh, replayed or other answer
}

// classify classes r as the contract does. A transport error is a lost answer.
func classify(r reply) keyOutput {
	answer, code := fmt.Sprintf("%d %s", r.Status, r.Body), problemCode(r.Body)
	switch {
	case r.Err != nil:
		return keyOutput{Kind: answerLost}
	case r.Replayed:
		return keyOutput{Kind: answerReplay, Answer: answer}
	case r.Status == 201 || r.Status == 422 && code == "insufficient_funds":
		return keyOutput{Kind: answerFresh, Answer: answer}
	case r.Status == 409 && code == "idempotency_key_in_use":
		return keyOutput{Kind: answerInUse}
	case r.Status == 422 && code == "idempotency_key_reused":
		return keyOutput{Kind: answerReused}
	}
	return keyOutput{Kind: answerOther, Answer: answer}
}

// keyPhase is where a key stands.
type keyPhase int

const (
	keyFree keyPhase = iota
	keyInFlight
	keyComplete
)

// keyState is one key in the model. It is comparable, as porcupine's default equality needs.
type keyState struct {
	Phase   keyPhase
	Owner   int     // in flight: the request that reserved the key
	Payload payload // in flight or complete: the payload of that request
	Answer  string  // complete: the stored answer, or "" while only a lost request has seen it
}

// stepKey reports whether a request could get out from state s, and returns the state after it.
func stepKey(s keyState, in keyInput, out keyOutput) (bool, keyState) {
	switch out.Kind {
	case answerFresh:
		return takeKey(s, in, out.Answer)
	case answerLost, answerNone:
		if ok, next := takeKey(s, in, ""); ok {
			return true, next
		}
		return s.Phase != keyFree, s // the commit follows the reserve: it never finds the key free
	case answerReplay:
		if s.Phase != keyComplete || s.Payload != in.Payload {
			return false, s
		}
		if s.Answer == "" { // an answer that only a lost request saw is learnt here
			s.Answer = out.Answer
		}
		return s.Answer == out.Answer, s
	case answerInUse:
		return s.Phase == keyInFlight && s.Payload == in.Payload, s
	case answerReused:
		return s.Phase != keyFree && s.Payload != in.Payload, s
	}
	return false, s
}

// takeKey is a request taking the key. Its reserve finds the key free. Its commit finds the key
// reserved by itself and stores answer.
func takeKey(s keyState, in keyInput, answer string) (bool, keyState) {
	switch {
	case in.Step == stepReserve && s.Phase == keyFree:
		return true, keyState{Phase: keyInFlight, Owner: in.Request, Payload: in.Payload}
	case in.Step == stepCommit && s.Phase == keyInFlight && s.Owner == in.Request:
		return true, keyState{Phase: keyComplete, Payload: in.Payload, Answer: answer}
	}
	return false, s
}

// partitionByKey splits a history by token and key.
func partitionByKey(history []porcupine.Operation) [][]porcupine.Operation {
	parts := map[scope][]porcupine.Operation{}
	for _, op := range history {
		id := op.Input.(keyInput).ID
		parts[id] = append(parts[id], op)
	}
	return slices.Collect(maps.Values(parts))
}
