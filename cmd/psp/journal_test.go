package main

import (
	"context"
	"strings"
	"testing"

	"pixretry/psp"
	"pixretry/psp/control"
)

// TestJournalFlagsBoundTheJournal: -journal-max and -journal-bytes reach the journal that
// GET /_psp/requests reads.
func TestJournalFlagsBoundTheJournal(t *testing.T) {
	tests := []struct {
		name           string
		args           []string
		count, dropped int
	}{
		{"the defaults", nil, 3, 0},
		{"-journal-max", []string{"-journal-max", "2"}, 2, 1},
		{"-journal-bytes", []string{"-journal-bytes", "600"}, 1, 2}, // an entry takes over 300 bytes
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustStart(t, append([]string{"-tokens", "smoke", "-log", "off"}, tt.args...)...)
			for _, key := range []string{"k1", "k2", "k3"} {
				if status, body := s.do(t, "POST", psp.PaymentsPath, key, strings.NewReader(payment)); status != 201 {
					t.Fatalf("payment %s = %d %s, want 201", key, status, body)
				}
			}
			c := control.Client{BaseURL: s.url, HTTPClient: s.client}
			requests, dropped, err := c.Requests(context.Background(), psp.RequestFilter{})
			if err != nil || len(requests) != tt.count || dropped != int64(tt.dropped) || requests[0].Key != []string{"k1", "k2", "k3"}[tt.dropped] {
				t.Errorf("Requests() = %+v, %d dropped, %v; want the latest %d, %d dropped", requests, dropped, err, tt.count, tt.dropped)
			}
			if err := s.stop(); err != nil {
				t.Errorf("run() = %v, want nil", err)
			}
		})
	}
}
