package scrapetest_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync/atomic"
	"testing"

	"go.uber.org/goleak"

	"pixretry/internal/scrape/scrapetest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestMissing(t *testing.T) {
	text := "# TYPE a_total counter\na_total{x=\"1\"} 3\nb 1\n"
	tests := []struct {
		want []string
		miss []string
	}{
		{[]string{`a_total{x="1"} 3`, "b 1"}, nil},
		{[]string{`a_total{x="1"} 30`, "b 1", "a_total"}, []string{`a_total{x="1"} 30`, "a_total"}}, // whole lines only
		{nil, nil},
	}
	for _, tt := range tests {
		if got := scrapetest.Missing(text, tt.want...); !slices.Equal(got, tt.miss) {
			t.Errorf("Missing(%q) = %q, want %q", tt.want, got, tt.miss)
		}
	}
}

// Await scrapes again until the lines are there: here the third answer has them.
func TestAwaitScrapesUntilTheLinesAreThere(t *testing.T) {
	var scrapes atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "scrapes_total %d\n", scrapes.Add(1))
	}))
	defer srv.Close()
	if body := scrapetest.Await(t, srv.URL, "scrapes_total 3"); body != "scrapes_total 3\n" {
		t.Errorf("Await() = %q, want the answer that holds the line", body)
	}
}
