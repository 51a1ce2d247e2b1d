package durableotel_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/metric/metricdata/metricdatatest"

	"pixretry/durable"
	"pixretry/durable/durablesqlite"
	"pixretry/pix"
	"pixretry/psp"
)

// The crash test's child process pays one intent on the database at childDBEnv through the
// PSP at childPSPEnv, says "settled" on stdout once the PSP has settled it, before pix reads
// the answer, and waits there for its SIGKILL.
const (
	childDBEnv  = "DURABLEOTEL_CHILD_DB"
	childPSPEnv = "DURABLEOTEL_CHILD_PSP"
	crashedID   = "order-1"
)

// crashChild runs the child and returns its exit code.
func crashChild(path, url string) int {
	if err := runChild(path, url); err != nil {
		fmt.Fprintln(os.Stderr, "crash child:", err)
		return 1
	}
	return 0
}

func runChild(path, url string) error {
	ctx := context.Background()
	db, err := durablesqlite.Open(path)
	if err != nil {
		return err
	}
	client := &pix.Client{BaseURL: url, Token: psp.DefaultToken, Policy: policy,
		HTTPClient: &http.Client{Transport: settledUnread{}}}
	p, err := durable.New(ctx, durablesqlite.New(db), payerConfig(client, nil))
	if err != nil {
		return err
	}
	if _, err := p.Pay(ctx, crashedID, payment(12_345)); err != nil {
		return err
	}
	if err := p.Start(ctx); err != nil {
		return err
	}
	<-time.After(time.Minute) // the parent kills the child long before
	return errors.New("not killed within a minute")
}

// settledUnread stops the child between the PSP's 201 and pix's reading of it.
type settledUnread struct{}

func (settledUnread) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err == nil && resp.StatusCode == http.StatusCreated {
		fmt.Println("settled")
		<-time.After(time.Minute)
	}
	return resp, err
}

// killSettled runs the child on the database at path and kills it with SIGKILL once the PSP
// at url has settled its intent: the intent stays pending with one attempt, its job running.
func killSettled(t *testing.T, path, url string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childDBEnv+"="+path, childPSPEnv+"="+url)
	stderr := &strings.Builder{}
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	if !lines.Scan() || lines.Text() != "settled" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("the child ended without saying settled; stderr:\n%s", stderr)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	for lines.Scan() { // drain, so that Wait does not race the pipe's reader
	}
	var exit *exec.ExitError
	if err := cmd.Wait(); !errors.As(err, &exit) || exit.Exited() {
		t.Fatalf("child: Wait() = %v, want killed by a signal", err)
	}
}

// A process was killed after the PSP settled its intent and before it read the answer. A new
// process counts the intent pending, resumes it at its job's second attempt under the same
// key, and counts one settled attempt and the intent settled. The PSP settled it once.
func TestMetricsOfAnIntentResumedAfterACrash(t *testing.T) {
	t.Parallel()
	srv, err := psp.NewServer(psp.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	path := dbPath(t)
	killSettled(t, path, hs.URL)

	reader, ocfg := mustReader(t)
	client := &pix.Client{BaseURL: hs.URL, Token: psp.DefaultToken, Policy: policy}
	p := mustPayer(t, path, payerConfig(client, mustMiddleware(t, ocfg)))
	mustObserve(t, p, ocfg)
	in, err := p.Intent(context.Background(), crashedID)
	if err != nil || in.Status != durable.StatusPending || in.Attempts != 1 {
		t.Fatalf("Intent() after the kill = %+v, %v; want pending with 1 attempt", in, err)
	}
	got := metricsOf(collect(t, reader), durableScope)
	metricdatatest.AssertEqual(t, intentsWant(1, 0, 0, 0), got["durable.intents"], metricdatatest.IgnoreTimestamp())
	if m, ok := got["durable.job.attempts"]; ok {
		t.Errorf("durable.job.attempts before Start = %+v, want none: the dead process's attempt was its own", m)
	}

	mustWork(t, p)
	rm := collect(t, reader)
	got = metricsOf(rm, durableScope)
	for _, want := range []metricdata.Metrics{intentsWant(0, 0, 1, 0), ageWant(0), attemptsWant(map[string]int64{"settled": 1})} {
		metricdatatest.AssertEqual(t, want, got[want.Name], metricdatatest.IgnoreTimestamp())
	}
	if m, ok := got["durable.job.snoozes"]; ok {
		t.Errorf("durable.job.snoozes = %+v, want none", m)
	}
	river := metricsOf(rm, riverScope)
	metricdatatest.AssertEqual(t, riverCount("river.work_count", "Number of jobs worked", workCount(2, "ok", 1)),
		river["river.work_count"], metricdatatest.IgnoreTimestamp())
	if m, ok := river["river.insert_count"]; ok {
		t.Errorf("river.insert_count = %+v, want none: the dead process stored the intent", m)
	}
	settlements := srv.Settlements()
	if len(settlements) != 1 || settlements[0].IdempotencyKey != in.Key {
		t.Errorf("the PSP's settlements = %+v, want one, under key %s", settlements, in.Key)
	}
	checkNoPaymentInAttributes(t, rm, map[string]durable.Intent{crashedID: in})
}
