package properties

import (
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/anishathalye/porcupine"
)

// keyModel is the sequential contract of one token and key. porcupine checks the PSP's
// histories against it, and judgeBurst checks a burst's replies. A key starts free. The first
// request that takes it reserves it (in flight). That request then completes the key with its
// answer, a settlement (201) or a refusal (422 insufficient_funds). The same payload then gets
// that answer again, byte for byte, marked as a replay. The same payload gets 409 only while
// the key is in flight. Another payload gets 422 idempotency_key_reused once the key is taken.
// No other answer to a payment request is allowed.
//
// A fresh answer is two operations over the same interval, its reserve and its commit, so that
// a 409 can fall between them. A request without an answer may or may not have taken effect.
// It takes the key if it finds the key free, and changes nothing if it finds the key taken. An
// answer lost in transit (a drop fault) was lost after processing, so its steps lie within the
// request. A client that gave up has no return time: porcupine may place its steps after
// everything else.
//
// Keys are independent, so the model is partitioned by token and key. The balance is shared by
// all keys and stays outside: any first request may settle or be refused.
var keyModel = porcupine.Model{
	Partition: partitionByKey,
	Init:      func() any { return keyState{} },
	Step: func(state, input, output any) (bool, any) {
		return stepKey(state.(keyState), input.(keyInput), output.(keyOutput))
	},
	DescribeOperation: func(input, output any) string {
		return describeKeyOp(input.(keyInput), output.(keyOutput))
	},
	DescribeState: func(state any) string { return state.(keyState).String() },
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
	case r.Status == 201 || r.Status == 422 && code == codeInsufficientFunds:
		return keyOutput{Kind: answerFresh, Answer: answer}
	case r.Status == 409 && code == codeIdempotencyKeyInUse:
		return keyOutput{Kind: answerInUse}
	case r.Status == 422 && code == codeIdempotencyKeyReused:
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

// partitionByKey splits a history by token and key, in the order of first appearance.
func partitionByKey(history []porcupine.Operation) [][]porcupine.Operation {
	index := map[scope]int{}
	var parts [][]porcupine.Operation
	for _, op := range history {
		id := op.Input.(keyInput).ID
		i, ok := index[id]
		if !ok {
			i = len(parts)
			index[id] = i
			parts = append(parts, nil)
		}
		parts[i] = append(parts[i], op)
	}
	return parts
}

func (s keyState) String() string {
	switch s.Phase {
	case keyInFlight:
		return fmt.Sprintf("in flight: request %d, %v", s.Owner, s.Payload)
	case keyComplete:
		return fmt.Sprintf("complete: %v -> %s", s.Payload, tagAnswer(s.Answer))
	}
	return "free"
}

// describeKeyOp is an operation in porcupine's visualization.
func describeKeyOp(in keyInput, out keyOutput) string {
	step := [...]string{stepReserve: "reserve", stepCommit: "commit", stepObserve: "send"}[in.Step]
	got := [...]string{
		answerFresh: tagAnswer(out.Answer), answerReplay: "replay " + tagAnswer(out.Answer),
		answerInUse: "409 in use", answerReused: "422 reused", answerLost: "lost", answerNone: "gave up",
		answerOther: "other: " + out.Answer,
	}[out.Kind]
	return fmt.Sprintf("%s/%s #%d %s %v -> %s", in.ID.token, in.ID.key, in.Request, step, in.Payload, got)
}

// tagAnswer is a stored answer in a visualization: its status and a hash of the whole, so that
// a reader sees whether a replay is the answer stored.
func tagAnswer(a string) string {
	if a == "" {
		return "unknown"
	}
	h := fnv.New32a()
	h.Write([]byte(a))
	status, _, _ := strings.Cut(a, " ")
	return fmt.Sprintf("%s [%08x]", status, h.Sum32())
}
