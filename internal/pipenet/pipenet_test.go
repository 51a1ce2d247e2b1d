package pipenet_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"

	"pixretry/internal/pipenet"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestServerAnswersInsideABubble(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := pipenet.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			time.Sleep(time.Hour) // virtual: the bubble advances its clock at once
			io.WriteString(w, "hello "+r.URL.Path)
		}))
		defer srv.Close()

		start := time.Now()
		resp, err := srv.Client().Get(srv.URL + "/world")
		if err != nil {
			t.Fatalf("Get() error = %v", err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if got, want := string(body), "hello /world"; got != want {
			t.Errorf("body = %q, want %q", got, want)
		}
		if got, want := time.Since(start), time.Hour; got != want {
			t.Errorf("elapsed = %v, want %v", got, want)
		}
	})
}

func TestHijackedCloseIsATransportError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := pipenet.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			conn, _, err := http.NewResponseController(w).Hijack()
			if err != nil {
				t.Errorf("Hijack() error = %v", err)
				return
			}
			conn.Close()
		}))
		defer srv.Close()

		_, err := srv.Client().Post(srv.URL, "text/plain", strings.NewReader("x"))
		if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("Post() error = %v, want one wrapping io.EOF or io.ErrUnexpectedEOF", err)
		}
	})
}

func TestDialAfterCloseFails(t *testing.T) {
	l := pipenet.Listen()
	l.Close()
	l.Close() // harmless twice
	if _, err := l.Dial(context.Background(), "tcp", "pipe"); !errors.Is(err, pipenet.ErrClosed) {
		t.Errorf("Dial() error = %v, want %v", err, pipenet.ErrClosed)
	}
	if _, err := l.Accept(); !errors.Is(err, pipenet.ErrClosed) {
		t.Errorf("Accept() error = %v, want %v", err, pipenet.ErrClosed)
	}
}

func TestDialHonoursContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := pipenet.Listen() // nobody accepts
		defer l.Close()
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		if _, err := l.Dial(ctx, "tcp", "pipe"); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Dial() error = %v, want %v", err, context.DeadlineExceeded)
		}
	})
}

func TestAddr(t *testing.T) {
	a := pipenet.Listen().Addr()
	if a.Network() != "pipe" || a.String() != "pipe" {
		t.Errorf("Addr() = %s/%s, want pipe/pipe", a.Network(), a.String())
	}
}
