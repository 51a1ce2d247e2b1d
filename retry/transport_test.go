package retry_test

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"syscall"
	"testing"
	"time"

	"pixretry/retry"
)

// TestTransientRealTransportErrors classifies errors produced by net/http
// itself against servers on the loopback interface that misbehave on purpose.
// Each case first checks that the failure is the one it claims to be, so that
// a change in net/http cannot turn it silently into another case.
func TestTransientRealTransportErrors(t *testing.T) {
	tests := []struct {
		name    string
		produce func(t *testing.T) error
		is      func(error) bool // the failure is the one named
		want    bool
	}{
		{"connection refused", refused, isErr(syscall.ECONNREFUSED), true},
		{"connection closed before the response", closedBeforeResponse, isErr(io.EOF), true},
		{"connection reset", reset, isErr(syscall.ECONNRESET), true},
		{"connection closed in the headers", cutIn("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n"), isErr(io.ErrUnexpectedEOF), true},
		{"connection closed in the body", cutIn("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc"), isErr(io.ErrUnexpectedEOF), true},
		{"attempt deadline", attemptDeadline, isErr(context.DeadlineExceeded), true},
		{"client timeout", clientTimeout, isTimeout, true},
		{"use of a closed connection", useOfClosed, isErr(net.ErrClosed), true},
		{"caller canceled", callerCanceled, isErr(context.Canceled), false},
		{"no such host", noSuchHost, isNotFound, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.produce(t)
			if !tt.is(err) {
				t.Fatalf("the transport failed with %v (%T), not as this case expects", err, err)
			}
			if got := retry.Transient(err); got != tt.want {
				t.Errorf("Transient(%v) = %t, want %t", err, got, tt.want)
			}
		})
	}
}

// TestDoRetriesRealTransportFailures runs Do over a real HTTP exchange whose
// first two connections are reset and closed: the third attempt gets the
// answer.
func TestDoRetriesRealTransportFailures(t *testing.T) {
	var requests int
	url := serve(t, func(w http.ResponseWriter, r *http.Request) {
		requests++ // the client sends one request at a time
		switch requests {
		case 1:
			hijackAnd(t, w, resetConn)
		case 2:
			hijackAnd(t, w, net.Conn.Close)
		default:
			io.WriteString(w, "settled")
		}
	})
	client := newClient(t)
	var r recorder
	p := retry.Policy{AttemptsMax: 3} // zero delays: no wait between attempts
	// The deadline is never reached; it guarantees that a wrong wait, which
	// would outlast it, ends Do at once instead of stalling the test.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	got, err := retry.Do(ctx, p, func(ctx context.Context) (string, error) {
		return get(ctx, client, url)
	}, r.option())
	if got != "settled" || err != nil {
		t.Fatalf("Do() = %q, %v; want %q, nil", got, err, "settled")
	}
	if !errors.Is(r.seen[0].Err, syscall.ECONNRESET) || !errors.Is(r.seen[1].Err, io.EOF) || len(r.seen) != 3 {
		t.Errorf("observed %+v, want a reset, an EOF and a success", r.seen)
	}
}

func isErr(target error) func(error) bool {
	return func(err error) bool { return errors.Is(err, target) }
}

func isTimeout(err error) bool {
	ne, ok := errors.AsType[net.Error](err)
	return ok && ne.Timeout()
}

func isNotFound(err error) bool {
	dnsErr, ok := errors.AsType[*net.DNSError](err)
	return ok && dnsErr.IsNotFound
}

// newClient returns a client with a transport of its own, whose idle
// connections are closed when the test ends.
func newClient(t *testing.T) *http.Client {
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// get fetches url and reads the whole body, as a client of a PSP would.
func get(ctx context.Context, client *http.Client, url string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return string(body), err
}

// serve starts a loopback server for the test's lifetime.
func serve(t *testing.T, h http.HandlerFunc) (url string) {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

// serveHeld starts a loopback server whose handler calls arrived and then
// holds the request, unanswered, until the test ends.
func serveHeld(t *testing.T, arrived func()) (url string) {
	release := make(chan struct{})
	url = serve(t, func(http.ResponseWriter, *http.Request) {
		arrived()
		<-release
	})
	t.Cleanup(func() { close(release) }) // before the server's Close, which waits for handlers
	return url
}

// hijackAnd takes the connection away from the HTTP server and hands it to do.
func hijackAnd(t *testing.T, w http.ResponseWriter, do func(net.Conn) error) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err != nil {
		t.Errorf("Hijack: %v", err)
		return
	}
	if err := do(conn); err != nil {
		t.Errorf("on the hijacked connection: %v", err)
	}
}

// resetConn closes conn with a TCP RST instead of a FIN.
func resetConn(conn net.Conn) error {
	if err := conn.(*net.TCPConn).SetLinger(0); err != nil {
		return err
	}
	return conn.Close()
}

func refused(t *testing.T) error {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + l.Addr().String()
	l.Close()
	_, err = get(context.Background(), newClient(t), url)
	return err
}

func closedBeforeResponse(t *testing.T) error {
	url := serve(t, func(w http.ResponseWriter, r *http.Request) { hijackAnd(t, w, net.Conn.Close) })
	_, err := get(context.Background(), newClient(t), url)
	return err
}

func reset(t *testing.T) error {
	url := serve(t, func(w http.ResponseWriter, r *http.Request) { hijackAnd(t, w, resetConn) })
	_, err := get(context.Background(), newClient(t), url)
	return err
}

// cutIn returns a case whose server writes partial, then closes the
// connection.
func cutIn(partial string) func(t *testing.T) error {
	return func(t *testing.T) error {
		url := serve(t, func(w http.ResponseWriter, r *http.Request) {
			hijackAnd(t, w, func(conn net.Conn) error {
				if _, err := io.WriteString(conn, partial); err != nil {
					return err
				}
				return conn.Close()
			})
		})
		_, err := get(context.Background(), newClient(t), url)
		return err
	}
}

// attemptDeadline is an attempt whose own deadline passes while the server,
// which never answers before the test ends, holds the request.
func attemptDeadline(t *testing.T) error {
	url := serveHeld(t, func() {})
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	_, err := get(ctx, newClient(t), url)
	return err
}

func clientTimeout(t *testing.T) error {
	url := serveHeld(t, func() {})
	client := newClient(t)
	client.Timeout = time.Millisecond
	_, err := get(context.Background(), client, url)
	return err
}

// callerCanceled is a request that the caller cancels once the server has it.
func callerCanceled(t *testing.T) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	url := serveHeld(t, cancel)
	_, err := get(ctx, newClient(t), url)
	return err
}

func useOfClosed(t *testing.T) error {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	conn, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	conn.Close()
	_, err = conn.Read(make([]byte, 1))
	return err
}

// noSuchHost is a request to a name that the DNS says does not exist: the
// client's resolver talks to an in-memory DNS server that answers NXDOMAIN.
func noSuchHost(t *testing.T) error {
	resolver := &net.Resolver{PreferGo: true, Dial: func(context.Context, string, string) (net.Conn, error) {
		client, server := net.Pipe()
		go answerNXDomain(server)
		return client, nil
	}}
	tr := &http.Transport{DialContext: (&net.Dialer{Resolver: resolver}).DialContext}
	t.Cleanup(tr.CloseIdleConnections)
	_, err := get(context.Background(), &http.Client{Transport: tr}, "http://psp.invalid/")
	return err
}

// answerNXDomain reads one DNS query in TCP framing (the Go resolver uses it on
// a connection that is no net.PacketConn) and answers that the name does not
// exist.
func answerNXDomain(conn net.Conn) {
	defer conn.Close()
	var size uint16
	if err := binary.Read(conn, binary.BigEndian, &size); err != nil {
		return
	}
	query := make([]byte, size)
	if _, err := io.ReadFull(conn, query); err != nil {
		return
	}
	end := 12 // the question follows the header: labels, a zero byte, type and class
	for end < len(query) && query[end] != 0 {
		end += int(query[end]) + 1
	}
	end = min(end+5, len(query))
	const flags = 0x8583 // response, authoritative, recursion desired and available, NXDOMAIN
	answer := binary.BigEndian.AppendUint16(nil, uint16(end))
	answer = append(answer, query[0], query[1], flags>>8, flags&0xff, 0, 1, 0, 0, 0, 0, 0, 0)
	answer = append(answer, query[12:end]...)
	conn.Write(answer)
}
