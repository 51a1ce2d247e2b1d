package psp_test

import (
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"pixretry/psp"
)

// ends collects what Config.OnEnd receives.
type ends struct {
	mu   sync.Mutex
	list []psp.Ended
}

func (e *ends) add(x psp.Ended) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.list = append(e.list, x)
}

func (e *ends) got() []psp.Ended {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]psp.Ended(nil), e.list...)
}

// reporting sets Config.OnEnd to collect into e.
func reporting(e *ends) func(*psp.Config) {
	return func(c *psp.Config) { c.OnEnd = e.add }
}

// TestOnEndReportsASettlementOnce: a payment settled at once is reported once, with what its
// receipt says, and its replays, refusals and lookups report nothing.
func TestOnEndReportsASettlementOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var e ends
		s := mustServer(t, reporting(&e), func(c *psp.Config) { c.BalanceCents = 20000 })
		r := wantSettled(t, pay(s, "k1", validBody))
		pay(s, "k1", validBody)                                    // a replay
		pay(s, "k2", validBody)                                    // 422 insufficient_funds
		pay(s, "k1", `{"valor":"1.00","chave":"pix@example.com"}`) // 422 idempotency_key_reused
		lookUp(s, "k1")
		at, _ := time.Parse(time.RFC3339Nano, r.Horario)
		want := []psp.Ended{{Token: token, IdempotencyKey: "k1", EndToEndID: r.EndToEndID, AmountCents: 15000,
			PixKey: "pix@example.com", Description: "rent", Status: "REALIZADO", At: at}}
		if diff := cmp.Diff(want, e.got()); diff != "" {
			t.Errorf("OnEnd received (-want +got):\n%s", diff)
		}
	})
}

// TestOnEndIsCalledOutsideTheLock: OnEnd may call the Server back.
func TestOnEndIsCalledOutsideTheLock(t *testing.T) {
	var s *psp.Server
	var settled int
	s = mustServer(t, func(c *psp.Config) { c.OnEnd = func(psp.Ended) { settled = s.Stats().Settled } })
	wantSettled(t, pay(s, "k1", validBody))
	if settled != 1 {
		t.Errorf("Stats().Settled from OnEnd = %d, want 1", settled)
	}
}

// TestOnEndIsSilentAcrossAResetAndAfterClose: a payment in flight across a Reset settles
// against the state Reset discarded and is not reported; after Close, nothing is.
func TestOnEndIsSilentAcrossAResetAndAfterClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var e ends
		s := mustServer(t, reporting(&e))
		s.Inject(psp.Slow(time.Second))
		done := make(chan answer)
		go func() { done <- pay(s, "k1", validBody) }()
		synctest.Wait() // k1 is in flight, asleep in its fault
		s.Reset()
		wantSettled(t, <-done)
		s.Close()
		wantSettled(t, pay(s, "k2", validBody))
		s.Close() // twice is harmless
		if got := e.got(); len(got) != 0 {
			t.Errorf("OnEnd received %+v, want nothing", got)
		}
	})
}

// TestCloseWaitsForTheReportsInProgress: Close returns only once the OnEnd calls in progress
// have returned.
func TestCloseWaitsForTheReportsInProgress(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		s := mustServer(t, func(c *psp.Config) { c.OnEnd = func(psp.Ended) { <-release } })
		go pay(s, "k1", validBody)
		synctest.Wait() // k1 is reported, and OnEnd waits
		closed := make(chan struct{})
		go func() {
			s.Close()
			close(closed)
		}()
		synctest.Wait()
		select {
		case <-closed:
			t.Error("Close returned while OnEnd was running")
		default:
		}
		close(release)
		<-closed
	})
}
