// Package scrapetest reads a metrics endpoint as a Prometheus scraper does, for the tests of
// the commands that serve one (package scrape).
package scrapetest

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Within bounds how long Await scrapes. A command records some figures just after the event a
// test waits for, such as River's count of a job just after the job stored its outcome.
const Within = 10 * time.Second

// Await scrapes url every 5 ms until its answer holds each of want as a whole line, and returns
// that answer. It fails tb if url does not answer 200, or if a line is still missing after
// Within; it then names the missing lines and shows the last answer.
func Await(tb testing.TB, url string, want ...string) string {
	tb.Helper()
	var missing []string
	var body string
	for deadline := time.Now().Add(Within); ; time.Sleep(5 * time.Millisecond) {
		body = Get(tb, url)
		if missing = Missing(body, want...); len(missing) == 0 {
			return body
		}
		if time.Now().After(deadline) {
			break
		}
	}
	tb.Errorf("GET %s lacks the lines\n\t%s\nafter %v; it answered:\n%s", url, strings.Join(missing, "\n\t"), Within, body)
	return body
}

// Get answers the body of GET url. It fails tb unless url answers 200. It keeps no connection
// open.
func Get(tb testing.TB, url string) string {
	tb.Helper()
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Get(url)
	if err != nil {
		tb.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		tb.Fatalf("GET %s = %d, %v; want 200", url, resp.StatusCode, err)
	}
	return string(b)
}

// Missing answers the lines of want that are not whole lines of text, in want's order.
func Missing(text string, want ...string) []string {
	have := map[string]bool{}
	for line := range strings.Lines(text) {
		have[strings.TrimSuffix(line, "\n")] = true
	}
	var missing []string
	for _, w := range want {
		if !have[w] {
			missing = append(missing, w)
		}
	}
	return missing
}
