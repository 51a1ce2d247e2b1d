package properties

import (
	"bytes"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// timedReply is a reply and the instant it came back.
type timedReply struct {
	reply
	At time.Time
}

// burst sends payloads[i] from goroutine i, all under token and key, all at the same virtual
// instant (each goroutine waits on one channel, closed once all are ready), and returns the
// replies in the order of payloads. Call it inside a synctest bubble.
func burst(client *http.Client, baseURL, token, key string, payloads []payload) []timedReply {
	replies := make([]timedReply, len(payloads))
	var ready, done sync.WaitGroup
	gate := make(chan struct{})
	for i, p := range payloads {
		ready.Add(1)
		done.Go(func() {
			ready.Done()
			<-gate
			r := post(client, baseURL, token, key, p)
			replies[i] = timedReply{reply: r, At: time.Now()}
		})
	}
	ready.Wait()
	close(gate)
	done.Wait()
	return replies
}

// judgeBurst checks the replies to a burst of same-key requests against the contract, and
// returns the index of the one request that was processed afresh (-1 if the key was already
// known). known is the key's stored answer if it was completed before the burst, else nil.
//
// For a fresh key exactly one request is processed afresh: a 201 or a stored 422
// insufficient_funds, not marked replayed. Every other request with that request's payload
// gets 409 idempotency_key_in_use (it came while the first was in flight) or a replay of that
// answer, byte for byte; every request with another payload gets 422 idempotency_key_reused.
// For a known key, the same payload gets the stored answer replayed and any other payload 422
// idempotency_key_reused.
func judgeBurst(replies []timedReply, payloads []payload, known *modelKey) (int, error) {
	winner := -1
	for i, r := range replies {
		fresh := r.Status == 201 || r.Status == 422 && problemCode(r.Body) == codeInsufficientFunds
		if r.Err == nil && !r.Replayed && fresh {
			switch {
			case known != nil:
				return -1, fmt.Errorf("request %d was processed afresh, but the key held an answer", i)
			case winner >= 0:
				return -1, fmt.Errorf("requests %d and %d were both processed afresh", winner, i)
			}
			winner = i
		}
	}
	first := known
	if known == nil {
		if winner < 0 {
			return -1, fmt.Errorf("no request of the burst was processed afresh")
		}
		w := replies[winner]
		first = &modelKey{payload: payloads[winner], status: w.Status, body: w.Body}
	}
	for i, r := range replies {
		if i != winner {
			if err := judgeOther(r, payloads[i], first, known == nil); err != nil {
				return -1, fmt.Errorf("request %d: %w", i, err)
			}
		}
	}
	return winner, nil
}

// judgeOther checks one reply of a burst that was not processed afresh, against the key's first
// answer; inFlight says whether the key could still have been in flight (a 409).
func judgeOther(r timedReply, p payload, first *modelKey, inFlight bool) error {
	switch {
	case r.Err != nil:
		return fmt.Errorf("transport error %v", r.Err)
	case p != first.payload:
		if r.Status != 422 || problemCode(r.Body) != codeIdempotencyKeyReused || r.Replayed {
			return fmt.Errorf("another payload got %d %s (replayed=%v), want 422 idempotency_key_reused", r.Status,
				problemCode(r.Body), r.Replayed)
		}
	case r.Status == 409 && inFlight:
		if problemCode(r.Body) != codeIdempotencyKeyInUse || r.Replayed {
			return fmt.Errorf("got 409 %s (replayed=%v), want 409 idempotency_key_in_use", problemCode(r.Body), r.Replayed)
		}
	case !r.Replayed || r.Status != first.status || first.body != nil && !bytes.Equal(r.Body, first.body):
		return fmt.Errorf("the same payload got %d (replayed=%v), want a byte-identical replay of the %d answer", r.Status,
			r.Replayed, first.status)
	}
	return nil
}
