package pix

import (
	"net"
	"net/http"
	"sync"
	"time"
)

// do sends req with c.HTTPClient, or the shared default, without following redirects. A
// payment goes to the URL it was built for or nowhere (net/http would resend a POST answered
// 301, 302 or 303 as a GET to another URL).
func (c *Client) do(req *http.Request) (*http.Response, error) {
	hc := defaultHTTPClient()
	if c.HTTPClient != nil {
		hc = c.HTTPClient
	}
	noRedirects := *hc
	noRedirects.CheckRedirect = useLastResponse
	return noRedirects.Do(req)
}

func useLastResponse(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// defaultHTTPClient is the client of every Client whose HTTPClient is nil, shared so that
// they share a pool of connections. It bounds each phase that could otherwise hang (dial, TLS
// handshake, waiting for the response headers) for callers that set no AttemptTimeout. It reads
// at most headerLimit bytes of a response header. It keeps idle connections for 30 s, below the
// keep-alive timeout of most servers and load balancers, so that a request rarely meets a
// connection the server is closing.
var defaultHTTPClient = sync.OnceValue(func() *http.Client {
	return &http.Client{Transport: newDefaultTransport(newDefaultDialer())}
})

func newDefaultDialer() *net.Dialer {
	return &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
}

func newDefaultTransport(dialer *net.Dialer) *http.Transport {
	return &http.Transport{
		Proxy:                  http.ProxyFromEnvironment,
		DialContext:            dialer.DialContext,
		ForceAttemptHTTP2:      true,
		MaxIdleConns:           100,
		MaxIdleConnsPerHost:    16,
		IdleConnTimeout:        30 * time.Second,
		TLSHandshakeTimeout:    10 * time.Second,
		ResponseHeaderTimeout:  30 * time.Second,
		ExpectContinueTimeout:  time.Second,
		MaxResponseHeaderBytes: headerLimit,
	}
}
