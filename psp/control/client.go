package control

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"pixretry/psp"
)

// Client drives the control API of a PSP over HTTP, as command psp serves it. Its methods do
// what the psp.Server methods of the same names do. Each returns an error if the request fails
// or the answer is not the one the control API documents. It is safe for concurrent use.
type Client struct {
	// BaseURL is the PSP's, such as http://127.0.0.1:8080.
	BaseURL string
	// HTTPClient sends the requests. Nil means http.DefaultClient.
	HTTPClient *http.Client
	// Token, if not empty, is sent with every request as "Authorization: Bearer <Token>": the
	// PSP's control token (Options.Token, cmd/psp's -control-token).
	Token string
}

// Inject queues faults, all or none. With no faults it queues nothing. An invalid fault is an
// error wrapping psp.ErrInvalidFault, and none is queued then.
func (c Client) Inject(ctx context.Context, faults ...psp.Fault) error {
	raws := make([]jsontext.Value, len(faults)) // [] rather than null for no faults
	for i, f := range faults {
		var err error
		if raws[i], err = encodeFault(f); err != nil {
			return fmt.Errorf("control: POST %s: fault %d: %w", FaultsPath, i, err)
		}
	}
	body, _ := json.Marshal(map[string][]jsontext.Value{"faults": raws}) // valid JSON values
	return c.call(ctx, http.MethodPost, FaultsPath, body, http.StatusNoContent, nil)
}

// ClearFaults empties both fault queues and ends every down window.
func (c Client) ClearFaults(ctx context.Context) error {
	return c.call(ctx, http.MethodDelete, FaultsPath, nil, http.StatusNoContent, nil)
}

// Reset brings the keys, the closed keys, the ledger, the fault queues, the counters and the
// balance back to the start.
func (c Client) Reset(ctx context.Context) error {
	return c.call(ctx, http.MethodPost, ResetPath, nil, http.StatusNoContent, nil)
}

// BalanceCents returns the payer's balance, in cents.
func (c Client) BalanceCents(ctx context.Context) (int64, error) {
	var body balanceJSON
	if err := c.call(ctx, http.MethodGet, BalancePath, nil, http.StatusOK, &body); err != nil {
		return 0, err
	}
	cents, err := psp.ParseBalance(body.Balance)
	if err != nil {
		return 0, fmt.Errorf("control: GET %s: %w", BalancePath, err)
	}
	return cents, nil
}

// Settlements returns the ledger, in settlement order. Token and Description are empty, because
// the control API does not carry them.
func (c Client) Settlements(ctx context.Context) ([]psp.Settlement, error) {
	var body struct {
		Count       int              `json:"count"`
		Settlements []settlementJSON `json:"settlements"`
	}
	if err := c.call(ctx, http.MethodGet, SettlementsPath, nil, http.StatusOK, &body); err != nil {
		return nil, err
	}
	ledger := make([]psp.Settlement, len(body.Settlements))
	for i, w := range body.Settlements {
		cents, err := psp.ParseBalance(w.Valor)
		at, errAt := time.Parse(time.RFC3339Nano, w.Horario)
		if err = cmp.Or(err, errAt); err != nil {
			return nil, fmt.Errorf("control: GET %s: settlement %d: %w", SettlementsPath, i, err)
		}
		ledger[i] = psp.Settlement{IdempotencyKey: w.IdempotencyKey, EndToEndID: w.EndToEndID,
			AmountCents: cents, PixKey: w.Chave, SettledAt: at.UTC()}
	}
	return ledger, nil
}

// Stats returns the counters since the PSP started or was last reset. BalanceCents and Faults are
// 0, because GET StatsPath does not carry them: [Client.BalanceCents] reads the balance.
func (c Client) Stats(ctx context.Context) (psp.Stats, error) {
	var s statsJSON
	if err := c.call(ctx, http.MethodGet, StatsPath, nil, http.StatusOK, &s); err != nil {
		return psp.Stats{}, err
	}
	return psp.Stats{Requests: s.Requests, Lookups: s.Lookups, Shed: s.Shed, Settled: s.Settled, Dropped: s.Dropped,
		Keys: s.Keys, ClosedKeys: s.ClosedKeys, InFlight: s.InFlight, MaxInFlight: s.MaxInFlight, Pending: s.Pending,
		Rejected: s.Rejected}, nil
}

// Requests returns the requests of the PSP's journal that filter selects, in arrival order, and
// how many the journal has dropped since the PSP started or was last reset. A Payload that is
// JSON comes back without its whitespace. A filter the control API refuses (a Status outside
// 100 to 599) is an error.
func (c Client) Requests(ctx context.Context, filter psp.RequestFilter) ([]psp.Request, int64, error) {
	var body struct {
		Count    int           `json:"count"`
		Dropped  int64         `json:"dropped"`
		Requests []requestJSON `json:"requests"`
	}
	if err := c.call(ctx, http.MethodGet, RequestsPath+filterQuery(filter), nil, http.StatusOK, &body); err != nil {
		return nil, 0, err
	}
	requests := make([]psp.Request, len(body.Requests))
	for i, w := range body.Requests {
		arrived, err := time.Parse(time.RFC3339Nano, w.Arrived)
		if err != nil {
			return nil, 0, fmt.Errorf("control: GET %s: request %d: %w", RequestsPath, i, err)
		}
		payload := []byte(w.Payload) // JSON, or else a JSON string of the body
		if w.Payload.Kind() == '"' {
			var text string
			json.Unmarshal(w.Payload, &text) // a valid JSON string
			payload = []byte(text)
		}
		requests[i] = psp.Request{Seq: w.Seq, Arrived: arrived.UTC(), Method: w.Method, Path: w.Path,
			Key: w.IdempotencyKey, KeyHeader: w.IdempotencyKeyHeader, Token: w.Token, Traceparent: w.Traceparent,
			Payload: payload, InFlight: w.InFlight, Fault: w.Fault, Status: w.Status, Replayed: w.Replayed,
			Elapsed: time.Duration(math.Round(w.ElapsedMS * float64(time.Millisecond)))}
	}
	return requests, body.Dropped, nil
}

// filterQuery is the query of GET RequestsPath that selects what f selects, "" for every request.
func filterQuery(f psp.RequestFilter) string {
	q := url.Values{}
	if f.Key != "" {
		q.Set(keyParam, f.Key)
	}
	if f.Status != 0 {
		q.Set(statusParam, strconv.Itoa(f.Status))
	}
	if f.After != 0 {
		q.Set(afterParam, strconv.FormatUint(f.After, 10))
	}
	if len(q) == 0 {
		return ""
	}
	return "?" + q.Encode()
}

// call sends body (nil: none) with the Token, if any. A request that changes state (any method
// but GET) says Content-Type application/json, as the control API requires. The answer must
// have status want. Its JSON body is decoded into out, when out is not nil.
func (c Client) call(ctx context.Context, method, path string, body []byte, want int, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, c.BaseURL+path, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("control: %s %s: %w", method, path, err)
	}
	if method != http.MethodGet {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	resp, err := cmp.Or(c.HTTPClient, http.DefaultClient).Do(req)
	if err != nil {
		return fmt.Errorf("control: %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != want {
		answer, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("control: %s %s: status %d, want %d: %s",
			method, path, resp.StatusCode, want, bytes.TrimSpace(answer))
	}
	if out == nil {
		return nil
	}
	if err := json.UnmarshalRead(resp.Body, out); err != nil {
		return fmt.Errorf("control: %s %s: decoding the answer: %w", method, path, err)
	}
	return nil
}
