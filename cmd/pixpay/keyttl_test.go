package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"pixretry/psp"
)

// keyTTL is the PSP's KeyTTL and pixpay's -key-ttl.
const keyTTL = 2 * time.Second

// scenarios are the scenario tests, each run on a database of its own.
var scenarios = []struct {
	name string
	run  func(*scenario)
}{
	{"answer_dropped_then_down_past_the_TTL", answerDroppedThenDown},
	{"three_503s_then_down_past_the_TTL", unpaidThenDown},
	{"killed_after_the_commit_restarted_past_the_TTL", killedAfterTheCommit},
	{"mixed_faults_kills_and_pauses", mixedFaultsKillsAndPauses},
}

// TestKeyTTLScenarios runs the scenarios of a PSP that forgets a key keyTTL after it
// completes, on SQLite. pixpay runs in child processes with -key-ttl equal to the PSP's, is
// killed with SIGKILL, and is started again after pauses past the TTL. A resend under a
// forgotten key pays again, so each scenario ends held against the PSP's ledger
// (scenario.check): every intent settled once, across all its keys, with the ledger's
// endToEndId. The scenarios wait in real time, since the PSP and the children run on the wall
// clock: keyTTL is short, and every wait is bounded.
func TestKeyTTLScenarios(t *testing.T) {
	runScenarios(t, sqliteDB)
}

func TestPostgresKeyTTLScenarios(t *testing.T) {
	if os.Getenv(postgresEnv) == "" {
		t.Skipf("%s is not set: skipping the Postgres tests (make test-postgres runs them on a throwaway cluster)", postgresEnv)
	}
	runScenarios(t, mustPostgresDB)
}

// runScenarios runs every scenario at once, each on a database from newDB.
func runScenarios(t *testing.T, newDB func(*testing.T) string) {
	if testing.Short() {
		t.Skip("-short: the key TTL scenarios wait in real time, about 20 s (make test runs them)")
	}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			sc.run(newScenario(t, newDB(t), keyTTL))
		})
	}
}

// answerDroppedThenDown: the PSP settles and the answer is lost, then the PSP is down until
// it has forgotten the key. Resending the key would pay again; the intent must learn the
// settlement instead.
func answerDroppedThenDown(s *scenario) {
	s.add("a", 101)
	s.srv.Inject(psp.Drop(), psp.Down(s.ttl+s.ttl/4))
	s.finish()
	s.check()
}

// unpaidThenDown: three 503s before any processing leave the outcome unknown and the job
// snoozed, then the PSP is down past the TTL. Nothing was paid under the key, so the intent
// is paid once, under a new key.
func unpaidThenDown(s *scenario) {
	s.add("b", 102)
	s.srv.Inject(psp.Status(503), psp.Status(503), psp.Status(503), psp.Down(s.ttl+s.ttl/4))
	s.finish()
	in := s.check()["b"]
	ledger := s.srv.Settlements()
	if len(in.Keys) != 2 || len(ledger) != 1 || ledger[0].IdempotencyKey != in.Keys[1] {
		s.t.Errorf("keys %v, ledger:%s\nwant two keys, the one settlement under the second", in.Keys, settlements(ledger))
	}
}

// killedAfterTheCommit: pixpay run is killed while it waits for an answer the PSP holds after
// its commit, and started again once the PSP has forgotten the key.
func killedAfterTheCommit(s *scenario) {
	s.add("c", 103)
	s.srv.Inject(psp.Late(s.ttl))
	c := s.start()
	s.await("the PSP's commit", func() bool { return len(s.srv.Settlements()) == 1 })
	s.kill(c)
	if s.kills != 1 {
		s.t.Fatal("pixpay run finished before it was killed, though the PSP held its answer")
	}
	s.pause(0)
	s.finish()
	s.check()
}

// mixedFaultsKillsAndPauses: rounds of six new intents each, under mixed faults, each round's
// child killed at a random instant once it has reached the PSP, and the next started after a
// pause past the TTL; on SQLite one pause is shorter, and the keys are resent. A last child
// finishes.
func mixedFaultsKillsAndPauses(s *scenario) {
	const rounds, perRound = 4, 6
	rng := rand.New(rand.NewPCG(27, 4))
	for r := range rounds {
		for i := range perRound {
			s.add(fmt.Sprintf("r%d-%d", r, i), int64(1000+100*r+i))
		}
		s.srv.Inject(mixedFaults(rng, s.ttl)...)
		requests := s.srv.Stats().Requests
		c := s.start()
		s.await("the child's first payment request", func() bool { return s.srv.Stats().Requests > requests })
		time.Sleep(time.Duration(rng.Int64N(int64(600 * time.Millisecond))))
		s.kill(c)
		if r == 2 && !s.postgres { // on Postgres, the killed child's jobs wait for River's rescuer
			time.Sleep(s.ttl / 4) // within the TTL: the keys sent last are resent
			continue
		}
		s.pause(time.Duration(rng.Int64N(int64(s.ttl / 4))))
	}
	s.srv.Inject(mixedFaults(rng, s.ttl)...)
	s.finish()
	s.check()
	if s.kills < 3 {
		s.t.Errorf("%d children killed while they ran, want at least 3", s.kills)
	}
}

// mixedFaults draws the faults of a round: answers dropped or late, 503s before any
// processing, 502s after the commit and short outages, and in one round of two an outage
// past the TTL; and a 503 to a status lookup.
func mixedFaults(rng *rand.Rand, ttl time.Duration) []psp.Fault {
	menu := []psp.Fault{psp.Drop(), psp.Late(ttl / 3), psp.Status(503), psp.CommitStatus(502), psp.Down(ttl / 5)}
	var faults []psp.Fault
	for range 8 {
		faults = append(faults, menu[rng.IntN(len(menu))])
	}
	if rng.IntN(2) == 0 {
		faults = append(faults, psp.Down(ttl+ttl/4))
	}
	return append(faults, psp.Status(503).ForLookup())
}
