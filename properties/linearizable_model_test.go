package properties_test

import (
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/anishathalye/porcupine"
)

// keyModel is the sequential contract of one token and key, the model that porcupine checks
// the PSP's histories against. A key starts free. The first request that takes it reserves
// it (in flight), then completes it with its answer: a settlement (201) or a refusal (422
// insufficient_funds), stored under the key. The same payload then gets that answer again,
// byte for byte, marked as a replay. The same payload gets 409 only while the key is in
// flight. Another payload gets 422 idempotency_key_reused once the key is taken, in flight or
// complete. Nothing else is an answer to a payment request here.
//
// A fresh answer is two operations over the same interval, its reserve and its commit, so
// that a 409 can be placed between them. A request without an answer may or may not have
// taken effect: it takes the key if it finds the key free, and changes nothing if it finds the
// key taken. An answer lost in transit (a drop fault) was lost after processing, so its steps
// lie within the request. A request whose client gave up may take effect at any time after
// it was sent, or never: its steps end at infinity, and porcupine may place them after
// everything else.
//
// Keys are independent, so the model is partitioned by token and key. The balance is shared
// by all keys and stays outside: the model lets any first request settle or be refused.
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

// keyID names a partition: keys are scoped per bearer token.
type keyID struct{ Token, Key string }

// keyStep is the part of a request that an operation stands for.
type keyStep int

// The steps.
const (
	stepReserve keyStep = iota // the first half of a request that took the key: free to in flight
	stepCommit                 // its second half: in flight to complete, with the answer
	stepObserve                // a request that met a taken key: a replay, a 409 or a 422 reused
)

// keyInput is what a request asked.
type keyInput struct {
	ID      keyID
	Request int     // the request, shared by its reserve and its commit
	Step    keyStep // which part of the request this operation is
	Payload string  // the body, in one canonical form per payment
}

// answerKind is how the contract classes an answer.
type answerKind int

// The answer kinds.
const (
	answerFresh  answerKind = iota // 201 or 422 insufficient_funds, not marked as a replay
	answerReplay                   // any answer marked Idempotent-Replayed: true
	answerInUse                    // 409 idempotency_key_in_use
	answerReused                   // 422 idempotency_key_reused
	answerLost                     // the connection closed without an answer, after processing
	answerNone                     // the client gave up: the request may take effect, now, later or never
	answerOther                    // any other answer, which no request here may get
)

// keyOutput is what a request got.
type keyOutput struct {
	Kind   answerKind
	Answer string // the status and body of a fresh or replayed answer; the text of another
}

// keyPhase is where a key stands.
type keyPhase int

// The phases.
const (
	keyFree keyPhase = iota
	keyInFlight
	keyComplete
)

// keyState is one key in the model. It is comparable, so porcupine's default equality fits.
type keyState struct {
	Phase   keyPhase
	Owner   int    // in flight: the request that reserved the key
	Payload string // in flight or complete: the payload of that request
	Answer  string // complete: the stored answer; "" until someone sees it, if its request lost it
}

// stepKey is the model's transition: whether a request could get out from state s, and the
// state after it.
func stepKey(s keyState, in keyInput, out keyOutput) (bool, keyState) {
	switch out.Kind {
	case answerFresh:
		return takeKey(s, in, out.Answer)
	case answerLost, answerNone:
		return mayTakeKey(s, in)
	case answerReplay:
		return replay(s, in.Payload, out.Answer)
	case answerInUse:
		return s.Phase == keyInFlight && s.Payload == in.Payload, s
	case answerReused:
		return s.Phase != keyFree && s.Payload != in.Payload, s
	}
	return false, s
}

// takeKey is a request taking the key: its reserve finds the key free, its commit finds the
// key reserved by itself and stores answer.
func takeKey(s keyState, in keyInput, answer string) (bool, keyState) {
	switch {
	case in.Step == stepReserve && s.Phase == keyFree:
		return true, keyState{Phase: keyInFlight, Owner: in.Request, Payload: in.Payload}
	case in.Step == stepCommit && s.Phase == keyInFlight && s.Owner == in.Request:
		return true, keyState{Phase: keyComplete, Payload: in.Payload, Answer: answer}
	}
	return false, s
}

// mayTakeKey is a request without an answer. It took the key if it found the key free, and
// changed nothing if it found the key taken. Its commit follows its reserve: a commit that finds
// the key free would leave the key in flight for ever.
func mayTakeKey(s keyState, in keyInput) (bool, keyState) {
	if ok, next := takeKey(s, in, ""); ok {
		return true, next
	}
	return s.Phase != keyFree, s
}

// replay is a request that got the stored answer: the key is complete with its payload, and
// the answer is the one stored. An answer that only a lost request saw is learnt here.
func replay(s keyState, payload, answer string) (bool, keyState) {
	if s.Phase != keyComplete || s.Payload != payload {
		return false, s
	}
	if s.Answer == "" {
		s.Answer = answer
		return true, s
	}
	return s.Answer == answer, s
}

// partitionByKey splits a history by token and key, in the order of first appearance.
func partitionByKey(history []porcupine.Operation) [][]porcupine.Operation {
	index := map[keyID]int{}
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
		return fmt.Sprintf("in flight: request %d, %s", s.Owner, s.Payload)
	case keyComplete:
		return fmt.Sprintf("complete: %s -> %s", s.Payload, tagAnswer(s.Answer))
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
	return fmt.Sprintf("%s/%s #%d %s %s -> %s", in.ID.Token, in.ID.Key, in.Request, step, in.Payload, got)
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
