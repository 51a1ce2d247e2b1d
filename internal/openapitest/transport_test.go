package openapitest

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"pixretry/psp"
	"pixretry/psp/control"
)

// TestTransportChecksWhatTheClientReads: the client reads the answer whole, checked, and a
// broken one fails once. Of an answer cut short, the status and the header fields are checked,
// and the client reads its error.
func TestTransportChecksWhatTheClientReads(t *testing.T) {
	_, h := mustDouble(t)
	var f failures
	client := &http.Client{Transport: Transport(&f, inProcess(h))}
	r := request("POST", "http://psp"+psp.PaymentsPath, "k1", payment)
	r.RequestURI = "" // a client's request
	resp, err := client.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	if resp.StatusCode != 201 || err != nil || !strings.HasPrefix(string(body), `{"endToEndId":"E`) || len(f.msgs) > 0 {
		t.Errorf("payment = %d %s, %v, failures %q; want 201 and its receipt, no failure", resp.StatusCode, body, err, f.msgs)
	}

	broken := &http.Client{Transport: Transport(&f, inProcess(answering(200, `{"balance":1}`, "Content-Type", "application/json")))}
	if resp, err := broken.Get("http://psp" + control.BalancePath); err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET = %v, %v; want the broken 200", resp, err)
	}
	if len(f.msgs) != 1 || !strings.Contains(f.msgs[0], "GET /_psp/balance answered 200") {
		t.Errorf("Transport failed %q, want the broken balance", f.msgs)
	}

	cut := func(status int, contentType string) roundTripper {
		return func(r *http.Request) (*http.Response, error) {
			return &http.Response{StatusCode: status, Header: http.Header{"Content-Type": {contentType}}, Request: r,
				Body: io.NopCloser(io.MultiReader(strings.NewReader("431 Req"), errReader{io.ErrUnexpectedEOF}))}, nil
		}
	}
	resp, err = (&http.Client{Transport: Transport(&f, cut(431, "text/plain; charset=utf-8"))}).Get("http://psp" + control.BalancePath)
	if err != nil {
		t.Fatal(err)
	}
	if body, err := io.ReadAll(resp.Body); string(body) != "431 Req" || err != io.ErrUnexpectedEOF || len(f.msgs) != 1 {
		t.Errorf("the cut answer read %q, %v, failures %q; want 431 Req, io.ErrUnexpectedEOF and no new failure", body, err, f.msgs)
	}
	if _, err := (&http.Client{Transport: Transport(&f, cut(431, "application/json"))}).Get("http://psp" + control.BalancePath); err != nil {
		t.Fatal(err)
	}
	if len(f.msgs) != 2 || !strings.Contains(f.msgs[1], "GET /_psp/balance answered 431") {
		t.Errorf("Transport failed %q, want a cut 431 of JSON after the broken balance", f.msgs)
	}
}

// TestTransportPassesErrors: a round trip that fails returns its error, with nothing to check.
func TestTransportPassesErrors(t *testing.T) {
	var f failures
	refused := roundTripper(func(*http.Request) (*http.Response, error) { return nil, io.ErrClosedPipe })
	_, err := Transport(&f, refused).RoundTrip(request("GET", "http://psp"+control.BalancePath, "", ""))
	if err != io.ErrClosedPipe || len(f.msgs) > 0 {
		t.Errorf("RoundTrip() error = %v, failures %q; want io.ErrClosedPipe and none", err, f.msgs)
	}
}

// closeCounter is a body that counts its closes.
type closeCounter struct {
	io.Reader
	closes *int
}

func (c closeCounter) Close() error { *c.closes++; return nil }

// answeringBody is a transport that answers every request with status, header and body, and
// counts the closes of body in closes.
func answeringBody(status int, header http.Header, body io.Reader, closes *int) roundTripper {
	return func(r *http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: status, Header: header, Request: r, Body: closeCounter{body, closes}}, nil
	}
}

// TestTransportSkipsWhatNetHTTPDoesNotSend: the answer to HEAD has no body, and a body cut short
// is not checked. Transport closes the body it read.
func TestTransportSkipsWhatNetHTTPDoesNotSend(t *testing.T) {
	var f failures
	closes := 0
	head := answeringBody(405, http.Header{"Content-Type": {"application/problem+json"}, "Allow": {"GET"}},
		strings.NewReader(""), &closes)
	r := request("HEAD", "http://psp"+control.BalancePath, "", "")
	r.RequestURI = ""
	resp, err := Transport(&f, head).RoundTrip(r)
	if err != nil || resp.StatusCode != 405 || len(f.msgs) > 0 || closes != 1 {
		t.Errorf("HEAD = %v, %v, failures %q, %d closes; want 405, no failure and a close", resp, err, f.msgs, closes)
	}
	cut := answeringBody(200, http.Header{"Content-Type": {"application/json"}},
		io.MultiReader(strings.NewReader(`{"bal`), errReader{io.ErrUnexpectedEOF}), &closes)
	resp, err = Transport(&f, cut).RoundTrip(request("GET", "http://psp"+control.BalancePath, "", ""))
	if err != nil || resp.StatusCode != 200 || len(f.msgs) > 0 || closes != 2 {
		t.Errorf("a cut balance = %v, %v, failures %q, %d closes; want 200, no failure and a close", resp, err, f.msgs, closes)
	}
}
