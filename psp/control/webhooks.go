package control

import (
	"fmt"
	"net/http"
	"time"

	"pixretry/psp"
	"pixretry/psp/webhook"
)

// WebhooksPath is where GET reads the webhooks the Server sent through Options.Webhooks: the
// latest deliveries, each with its tries, and the Sender's counts. It never shows the secret.
const WebhooksPath = "/_psp/webhooks"

// noWebhooks says why a webhook request cannot be served without Options.Webhooks.
const noWebhooks = "no webhooks are sent: command psp sends them with -webhook URL -webhook-secret-file FILE"

// webhooksJSON is what GET WebhooksPath writes: webhook.Sender's record and counts. Its
// members are camelCase, as the journal's.
type webhooksJSON struct {
	Deliveries []deliveryJSON `json:"deliveries"`
	Sent       int64          `json:"sent"`
	Retried    int64          `json:"retried"`
	Duplicated int64          `json:"duplicated"`
	GivenUp    int64          `json:"givenUp"`
	Refused    int64          `json:"refused"`
	Dropped    int64          `json:"dropped"`
}

// deliveryJSON is a webhook.Delivery as GET WebhooksPath writes it.
type deliveryJSON struct {
	ID             string        `json:"id"`
	EndToEndID     string        `json:"endToEndId"`
	IdempotencyKey string        `json:"idempotencyKey"`
	Status         string        `json:"status"`
	State          string        `json:"state"`
	Attempts       []attemptJSON `json:"attempts"`
}

// attemptJSON is a webhook.Attempt as GET WebhooksPath writes it.
type attemptJSON struct {
	At        string  `json:"at"` // RFC 3339, in UTC, to the nanosecond
	Status    int     `json:"status"`
	Error     string  `json:"error"`
	ElapsedMS float64 `json:"elapsedMs"`
}

// getWebhooks writes the deliveries of Options.Webhooks, oldest first, and its counts, or 404
// without it.
func (h *handler) getWebhooks(w http.ResponseWriter, _ *http.Request) {
	sender := h.opts.Webhooks
	if sender == nil {
		writeProblem(w, http.StatusNotFound, "not_found", noWebhooks, nil)
		return
	}
	deliveries, st := sender.Deliveries(), sender.Stats()
	body := webhooksJSON{Deliveries: make([]deliveryJSON, len(deliveries)), Sent: st.Sent, Retried: st.Retried,
		Duplicated: st.Duplicated, GivenUp: st.GivenUp, Refused: st.Refused, Dropped: st.Dropped}
	for i, d := range deliveries {
		body.Deliveries[i] = deliveryJSON{ID: d.ID, EndToEndID: d.EndToEndID, IdempotencyKey: d.IdempotencyKey,
			Status: d.Status, State: d.State, Attempts: make([]attemptJSON, len(d.Attempts))}
		for j, a := range d.Attempts {
			body.Deliveries[i].Attempts[j] = attemptJSON{At: a.At.UTC().Format(time.RFC3339Nano), Status: a.Status,
				Error: a.Error, ElapsedMS: float64(a.Elapsed) / float64(time.Millisecond)}
		}
	}
	writeJSON(w, http.StatusOK, "application/json", body, nil)
}

// withoutWebhooks is a violation for each webhook fault of faults if there is no
// Options.Webhooks to queue them.
func (h *handler) withoutWebhooks(faults Faults) []psp.Violation {
	if h.opts.Webhooks != nil || len(faults.Webhooks) == 0 {
		return nil
	}
	return []psp.Violation{{Field: "faults", Reason: fmt.Sprintf(`%d with "target":"webhook", but %s`,
		len(faults.Webhooks), noWebhooks)}}
}

// queuedFaults is how many faults the queues hold, the webhooks' included.
func (h *handler) queuedFaults() int {
	return h.srv.Stats().Faults + len(h.webhookFaults())
}

// webhookFaults is the faults queued for the webhooks, in order; none without Options.Webhooks.
func (h *handler) webhookFaults() []webhook.Fault {
	if h.opts.Webhooks == nil {
		return nil
	}
	return h.opts.Webhooks.Faults()
}

// clearFaults empties the Server's queues and the webhooks'.
func (h *handler) clearFaults() {
	h.srv.ClearFaults()
	if h.opts.Webhooks != nil {
		h.opts.Webhooks.ClearFaults()
	}
}

// reset resets the Server, the webhooks' deliveries, record and faults, and then what
// Options.OnReset starts again.
func (h *handler) reset() {
	h.srv.Reset()
	if h.opts.Webhooks != nil {
		h.opts.Webhooks.Reset()
	}
	if h.opts.OnReset != nil {
		h.opts.OnReset()
	}
}
