package webhook_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"pixretry/psp"
	"pixretry/psp/webhook"
)

// plainForm is a Form of another PSP: the body is the key alone, POSTed to the URL with
// "/plain" appended, with the secret in a header. Its first failures requests fail unmade.
type plainForm struct{ failures int }

func (*plainForm) Body(_ string, e psp.Ended) []byte { return []byte(e.IdempotencyKey) }

func (f *plainForm) Request(ctx context.Context, url string, secret webhook.Secret, _ time.Time,
	body []byte) (*http.Request, error) {
	if f.failures > 0 { // the Sender has Parallel 1: one call at a time
		f.failures--
		return nil, errors.New("plain: no request")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, url+"/plain", bytes.NewReader(body))
	if err == nil {
		req.Header.Set("Content-Type", "text/plain")
		req.Header.Set(webhook.SignatureHeader, string(secret))
	}
	return req, err
}

// TestAFormWritesEachTry: a Config's Form writes the body and every try's request, and the
// Sender sends them as they are. A request the Form cannot make is a try without an answer,
// retried after its wait.
func TestAFormWritesEachTry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rc := answering()
		s := mustSender(t, rc, func(c *webhook.Config) {
			c.URL += "&x=1" // the Form appends /plain to the URL as given
			c.Form = &plainForm{failures: 1}
		})
		start := time.Now()
		s.Send(ended("k1", 100, "REALIZADO"))
		time.Sleep(time.Minute)
		synctest.Wait()

		got := rc.received()
		want := []received{{at: start.Add(500 * time.Millisecond), method: http.MethodPut, path: "/hooks/pix",
			contentType: "text/plain", signature: secret, body: "k1"}}
		if diff := cmp.Diff(want, got, cmp.AllowUnexported(received{})); diff != "" {
			t.Errorf("the receiver got (-want +got):\n%s", diff)
		}
		d := s.Deliveries()
		if len(d) != 1 || d[0].State != webhook.Delivered || len(d[0].Attempts) != 2 ||
			d[0].Attempts[0].Error != "plain: no request" || d[0].Attempts[1].Status != http.StatusOK {
			t.Errorf("Deliveries() = %+v, want one delivered on its second try, the first failed by the Form", d)
		}
	})
}
