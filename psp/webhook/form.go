package webhook

import (
	"bytes"
	"context"
	"net/http"
	"time"

	"pixretry/psp"
)

// Form is how a delivery goes on the wire: its body, and the request of each try. A PSP's
// front end provides one for its own webhook (psp/efi's WebhookForm is Efí's). The Sender keeps
// everything else: the queue, the tries and their waits, the faults and the record. A Form is
// used by several goroutines at once, so it must be safe for concurrent use.
type Form interface {
	// Body is the body of the delivery id of e, the same bytes at every try of it. A form
	// whose body carries no id leaves id out: the Sender's record still has it.
	Body(id string, e psp.Ended) []byte
	// Request is a try of body, made at t, to url (Config.URL as given), authenticated with
	// secret. The Sender sends it as it is, with ctx bounding the try. An error ends the try
	// without an answer, and the Sender tries again later.
	Request(ctx context.Context, url string, secret Secret, t time.Time, body []byte) (*http.Request, error)
}

// nativeForm is the double's own form, which a nil Config.Form means: the body {"id",
// "endToEndId","idempotencyKey","status","valor","horario"}, POSTed to Config.URL with a
// Pix-Signature header signed anew at each try.
type nativeForm struct{}

func (nativeForm) Body(id string, e psp.Ended) []byte { return encode(id, e) }

func (nativeForm) Request(ctx context.Context, url string, secret Secret, t time.Time, body []byte) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(SignatureHeader, sign(secret, t, body))
	return req, nil
}
