package webhook_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"pixretry/internal/pipenet"
	"pixretry/psp"
	"pixretry/psp/webhook"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// secret is a secret of the shortest length a Config takes.
const secret = "s3cret-s3cret-s3cret-s3cret-s3cr"

// hang is a receiver's answer that is none: it holds the try until the Sender gives up on it.
const hang = 0

// receiver is a webhook receiver that keeps what it got and answers each POST with the status
// answer gives for it, counted from 1, and its body. It checks nothing: tests check what it
// kept.
type receiver struct {
	answer func(n int, body string) int

	mu  sync.Mutex
	got []received
}

// received is one POST a receiver got.
type received struct {
	at          time.Time
	method      string
	path        string
	contentType string
	signature   string
	body        string
}

// answering is a receiver that answers the statuses in order, then 200.
func answering(statuses ...int) *receiver {
	return &receiver{answer: func(n int, _ string) int {
		if n <= len(statuses) {
			return statuses[n-1]
		}
		return http.StatusOK
	}}
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rc.mu.Lock()
	rc.got = append(rc.got, received{time.Now(), r.Method, r.URL.Path, r.Header.Get("Content-Type"),
		r.Header.Get(webhook.SignatureHeader), string(body)})
	n := len(rc.got)
	rc.mu.Unlock()
	status := rc.answer(n, string(body))
	if status == hang {
		<-r.Context().Done() // the Sender's timeout closes the connection
		return
	}
	w.WriteHeader(status)
}

// received returns a copy of what rc got, in arrival order.
func (rc *receiver) received() []received {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]received(nil), rc.got...)
}

// mustSender is a Sender to rc over in-memory connections (pipenet), for a synctest bubble,
// with a Config that edit may change: Parallel 1, and draws of 0.5. t's cleanup closes both.
func mustSender(t *testing.T, rc http.Handler, edit func(*webhook.Config)) *webhook.Sender {
	t.Helper()
	srv := pipenet.NewServer(rc)
	cfg := webhook.Config{
		URL:       srv.URL + "/hooks/pix?source=psp",
		Secret:    webhook.Secret(secret),
		Transport: srv.Transport(),
		Parallel:  1,
		Rand:      func() float64 { return 0.5 },
	}
	if edit != nil {
		edit(&cfg)
	}
	s, err := webhook.New(cfg)
	if err != nil {
		t.Fatalf("New() error = %v", err)
	}
	t.Cleanup(func() {
		s.Close()
		srv.Close()
	})
	return s
}

// ended is a payment of cents under key that ended now with status.
func ended(key string, cents int64, status string) psp.Ended {
	return psp.Ended{Token: psp.DefaultToken, IdempotencyKey: key, EndToEndID: "E1234567820260101000000" + key,
		AmountCents: cents, PixKey: "pix@example.com", Description: "rent", Status: status, At: time.Now().UTC()}
}

// verified reports whether signature is "t=<unix seconds>,v1=<hex HMAC-SHA256(key,
// "<t>.<body>")>" and returns its t. It is written apart from the package's own signing.
func verified(key, signature, body string) (t int64, ok bool) {
	parts := strings.Split(signature, ",")
	if len(parts) != 2 || !strings.HasPrefix(parts[0], "t=") || !strings.HasPrefix(parts[1], "v1=") {
		return 0, false
	}
	t, err := strconv.ParseInt(strings.TrimPrefix(parts[0], "t="), 10, 64)
	got, hexErr := hex.DecodeString(strings.TrimPrefix(parts[1], "v1="))
	mac := hmac.New(sha256.New, []byte(key))
	io.WriteString(mac, strconv.FormatInt(t, 10)+"."+body)
	return t, err == nil && hexErr == nil && hmac.Equal(got, mac.Sum(nil))
}

// wantEveryDeliveryEndsOnce checks Stats' balance: each delivery queued, a duplicate's copies
// counted apart, is under way or has ended once.
func wantEveryDeliveryEndsOnce(t *testing.T, s *webhook.Sender, sends int) {
	t.Helper()
	st := s.Stats()
	if ended := st.Sent + st.Refused + st.GivenUp + st.Dropped + int64(st.Queued); ended != int64(sends)+st.Duplicated {
		t.Errorf("Stats() = %+v: %d under way or ended, want %d sent and %d duplicated", st, ended, sends, st.Duplicated)
	}
}
