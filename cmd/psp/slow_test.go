package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"testing"
	"testing/synctest"
	"time"
)

// holdSlow opens n connections held by c, with keys prefixed by c's name.
func holdSlow(t *testing.T, p *piped, c slowClient, n int) []net.Conn {
	t.Helper()
	conns := make([]net.Conn, n)
	for i := range conns {
		conn, err := p.ln.Dial(context.Background(), "tcp", "pipe")
		if err != nil {
			t.Fatalf("dialing slow connection %d: %v", i, err)
		}
		c.hold(t, conn, fmt.Sprintf("slow-%d", i))
		conns[i] = conn
	}
	return conns
}

// TestSlowClientsLeaveRoomForAPayment holds all connections but one of -max-conns open with
// slow clients of every kind, the timeouts still running: a payment gets its 201 at once.
func TestSlowClientsLeaveRoomForAPayment(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const maxConns = 7
		p := mustPipe(t, "-tokens", "smoke", "-max-conns", fmt.Sprint(maxConns))
		var held []net.Conn
		for i := range maxConns - 1 {
			held = append(held, holdSlow(t, p, slowClients[i%len(slowClients)], 1)...)
		}
		start := time.Now()
		if got := p.pay(t, "k1"); got != 201 {
			t.Errorf("payment beside %d slow connections = %d, want 201", len(held), got)
		}
		if waited := time.Since(start); waited != 0 {
			t.Errorf("the payment waited %v, want no wait", waited)
		}
		for _, conn := range held {
			conn.Close()
		}
		if err := p.stop(); err != nil {
			t.Errorf("serve() = %v, want nil", err)
		}
	})
}

// TestSlowClientsAreCutAndFreeTheirSlots fills every connection of -max-conns with one kind of
// slow client: the next payment waits for a slot until the timeout for that kind closes them,
// then gets its 201.
func TestSlowClientsAreCutAndFreeTheirSlots(t *testing.T) {
	for _, c := range slowClients {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				const maxConns = 3
				p := mustPipe(t, "-tokens", "smoke", "-max-conns", fmt.Sprint(maxConns))
				start := time.Now()
				held := holdSlow(t, p, c, maxConns)
				cutAt := make(chan time.Duration, maxConns)
				for _, conn := range held {
					go func() {
						io.Copy(io.Discard, conn) // until the PSP closes it
						cutAt <- time.Since(start)
						conn.Close()
					}()
				}
				if got := p.pay(t, "k1"); got != 201 {
					t.Errorf("payment after the slow connections = %d, want 201", got)
				}
				want := time.Duration(c.cut(defaultLimits))
				if waited := time.Since(start); waited != want {
					t.Errorf("the payment got a slot after %v, want %v (the timeout)", waited, want)
				}
				for range maxConns {
					if got := <-cutAt; got != want {
						t.Errorf("a slow connection was cut after %v, want %v", got, want)
					}
				}
				if err := p.stop(); err != nil {
					t.Errorf("serve() = %v, want nil", err)
				}
			})
		})
	}
}
