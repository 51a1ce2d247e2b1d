package durable

import (
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"sync"
	"testing"
	"time"
)

// A worker rides out its database going away: every connection reset and none accepted for a
// second, while intents are pending. Wait logs its failed looks and returns once every intent
// is settled, each once.
//
// A reset can lose the answer to a fetch that River's database already committed: that job
// stays running with no worker until River's rescuer takes it, which the elected leader runs
// every 30 s for jobs running longer than RescueAfter. So the test waits that long for a job
// to progress, and the leader's election on top (seen in CI: 30 s were not enough).
func TestPostgresWaitRidesOutTheDatabaseAway(t *testing.T) {
	t.Parallel()
	u, err := url.Parse(mustPostgresURL(t))
	if err != nil {
		t.Fatal(err)
	}
	away := mustTCPCut(t, u.Host)
	u.Host = away.addr()
	l := mustPSP(t)
	logs := &keptRecords{}
	cfg := l.config()
	cfg.Logger = slog.New(logs)
	cfg.RescueAfter = cfg.JobTimeout
	p := mustPostgresPayer(t, u.String(), cfg)
	for i := range 20 {
		mustPay(t, p, fmt.Sprintf("p%02d", i), payment(int64(1000+i)))
	}
	mustStart(t, p)
	away.cut(time.Second)
	rescued := cfg.RescueAfter + rescuerInterval + leaderElected
	checkLedger(t, l, awaitDoneWithin(t, p, rescued, rescued+30*time.Second))
	if lookWarnings(logs) == 0 {
		t.Error("Wait logged no failed look while the database was away")
	}
}

// River's rescuer runs this often on the elected leader; a leader that lost its connection is
// replaced within leaderElected.
const (
	rescuerInterval = 30 * time.Second
	leaderElected   = 20 * time.Second // River's leader TTL, 15 s, and an election round
)

// tcpCut is a loopback TCP proxy to target that can take the database away: cut resets every
// connection it carries and refuses new ones for a while, as a restart or a network fault
// would.
type tcpCut struct {
	ln     net.Listener
	target string
	wg     sync.WaitGroup
	mu     sync.Mutex
	conns  map[*net.TCPConn]bool
	until  time.Time // new connections are refused until then
}

// mustTCPCut proxies a loopback address to target until the test ends.
func mustTCPCut(tb testing.TB, target string) *tcpCut {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	c := &tcpCut{ln: ln, target: target, conns: map[*net.TCPConn]bool{}}
	c.wg.Add(1)
	go c.accept()
	tb.Cleanup(func() {
		ln.Close()
		c.cut(0)
		c.wg.Wait()
	})
	return c
}

// addr is the proxy's host:port.
func (c *tcpCut) addr() string { return c.ln.Addr().String() }

func (c *tcpCut) accept() {
	defer c.wg.Done()
	for {
		in, err := c.ln.Accept()
		if err != nil {
			return
		}
		c.mu.Lock()
		refused := time.Now().Before(c.until)
		c.mu.Unlock()
		if refused {
			reset(in.(*net.TCPConn))
			continue
		}
		out, err := net.Dial("tcp", c.target)
		if err != nil {
			reset(in.(*net.TCPConn))
			continue
		}
		c.mu.Lock()
		c.conns[in.(*net.TCPConn)], c.conns[out.(*net.TCPConn)] = true, true
		c.mu.Unlock()
		c.wg.Add(2)
		go c.pipe(in.(*net.TCPConn), out.(*net.TCPConn))
		go c.pipe(out.(*net.TCPConn), in.(*net.TCPConn))
	}
}

// pipe copies src to dst until either ends, then closes both.
func (c *tcpCut) pipe(dst, src *net.TCPConn) {
	defer c.wg.Done()
	io.Copy(dst, src)
	c.mu.Lock()
	delete(c.conns, dst)
	delete(c.conns, src)
	c.mu.Unlock()
	dst.Close()
	src.Close()
}

// cut resets every connection and refuses new ones for d.
func (c *tcpCut) cut(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.until = time.Now().Add(d)
	for conn := range c.conns {
		reset(conn)
	}
}

// reset closes conn with a TCP reset rather than an orderly end.
func reset(conn *net.TCPConn) {
	conn.SetLinger(0)
	conn.Close()
}
