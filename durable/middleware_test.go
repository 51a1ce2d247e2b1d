package durable

import (
	"context"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// seenJobs is River middleware that notes the kind of each job inserted, and of each job
// attempt with whether it ended without an error.
type seenJobs struct {
	river.MiddlewareDefaults
	mu       sync.Mutex
	inserted []string
	worked   []string
}

func (m *seenJobs) InsertMany(ctx context.Context, params []*rivertype.JobInsertParams,
	doInner func(context.Context) ([]*rivertype.JobInsertResult, error)) ([]*rivertype.JobInsertResult, error) {
	m.mu.Lock()
	for _, p := range params {
		m.inserted = append(m.inserted, p.Kind)
	}
	m.mu.Unlock()
	return doInner(ctx)
}

func (m *seenJobs) Work(ctx context.Context, job *rivertype.JobRow, doInner func(context.Context) error) error {
	err := doInner(ctx)
	ended := "ok"
	if err != nil {
		ended = "failed"
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.worked = append(m.worked, job.Kind+" "+ended)
	return err
}

// Config.Middleware wraps the insertion of each intent's job and each of its attempts.
func TestConfigMiddlewareWrapsEveryJob(t *testing.T) {
	t.Parallel()
	l := mustPSP(t)
	db, _ := mustSQLite(t)
	seen := &seenJobs{}
	cfg := l.config()
	cfg.Middleware = []rivertype.Middleware{seen}
	p := mustPayer(t, db, cfg)
	mustPay(t, p, "a", payment(100))
	mustStart(t, p)
	awaitDone(t, p)
	if err := p.Stop(context.Background()); err != nil { // the attempt's middleware returns before Stop does
		t.Fatal(err)
	}
	seen.mu.Lock()
	defer seen.mu.Unlock()
	if diff := cmp.Diff([]string{"pix_payment"}, seen.inserted); diff != "" {
		t.Errorf("jobs inserted through the middleware: mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"pix_payment ok"}, seen.worked); diff != "" {
		t.Errorf("job attempts through the middleware: mismatch (-want +got):\n%s", diff)
	}
}
