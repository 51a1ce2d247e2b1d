package durable

// Payments that complete later: a pending answer keeps the intent pending, and a webhook or a
// later job attempt completes it, whichever comes first, once.

import (
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"pixretry/pix"
	"pixretry/psp"
	"pixretry/psp/psptest"
)

// settledWebhook is the PSP's webhook wh_1 for a payment of 100 cents under key, settled now.
func settledWebhook(key string) pix.Webhook {
	return pix.Webhook{ID: "wh_1", EndToEndID: "E12345678202612070102abcdefghijk", IdempotencyKey: key,
		Status: "REALIZADO", AmountCents: 100, At: time.Now()}
}

// webhookOf is the webhook the PSP would deliver for e.
func webhookOf(e psp.Ended) pix.Webhook {
	return pix.Webhook{ID: "wh_" + e.EndToEndID, EndToEndID: e.EndToEndID, IdempotencyKey: e.IdempotencyKey,
		Status: e.Status, AmountCents: e.AmountCents, At: e.At}
}

func TestApplyWebhookCompletesAPendingIntentOnce(t *testing.T) {
	t.Parallel()
	db, _ := mustSQLite(t)
	logs := &keptRecords{}
	p := mustPayer(t, db, Config{Logger: slog.New(logs)})
	ctx := context.Background()
	settled, rejected := mustPay(t, p, "settled", payment(100)), mustPay(t, p, "rejected", payment(200))
	at := time.Date(2026, 12, 7, 1, 2, 3, 4, time.UTC)
	done := settledWebhook(settled.Key)
	done.At = at
	for i := range 2 { // a duplicate changes nothing
		if err := p.ApplyWebhook(ctx, done); err != nil {
			t.Fatalf("ApplyWebhook(REALIZADO), delivery %d: %v", i+1, err)
		}
	}
	late := done
	late.Status, late.ID = "NAO_REALIZADO", "wh_2"
	if err := p.ApplyWebhook(ctx, late); err != nil {
		t.Errorf("ApplyWebhook(NAO_REALIZADO) after REALIZADO: %v, want nil and no change", err)
	}
	got, _ := p.Intent(ctx, "settled")
	if got.Status != StatusSettled || got.EndToEndID != done.EndToEndID || !got.SettledAt.Equal(at) || got.Error != "" {
		t.Errorf("after the webhooks: %+v, want settled with the first one's endToEndId and horario", got)
	}
	no := pix.Webhook{ID: "wh_3", EndToEndID: "E12345678202612070102abcdefghijl", IdempotencyKey: rejected.Key,
		Status: "NAO_REALIZADO", AmountCents: 200, At: at}
	if err := p.ApplyWebhook(ctx, no); err != nil {
		t.Fatalf("ApplyWebhook(NAO_REALIZADO): %v", err)
	}
	got, _ = p.Intent(ctx, "rejected")
	wantError := pix.ErrRejected.Error() + ": the PSP's webhook wh_3 says NAO_REALIZADO for endToEndId " + no.EndToEndID
	if got.Status != StatusRefused || got.EndToEndID != "" || got.Error != wantError {
		t.Errorf("after NAO_REALIZADO: %+v, want refused with the error %q", got, wantError)
	}
	because := mustPay(t, p, "because", payment(300))
	why := pix.Webhook{ID: "wh_4", EndToEndID: "E12345678202612070102abcdefghijm", IdempotencyKey: because.Key,
		Status: "NAO_REALIZADO", AmountCents: 300, At: at, Reason: "DS04: Ordem rejeitada (PSP do usuário recebedor)"}
	if err := p.ApplyWebhook(ctx, why); err != nil {
		t.Fatalf("ApplyWebhook(NAO_REALIZADO with a reason): %v", err)
	}
	got, _ = p.Intent(ctx, "because")
	wantError = pix.ErrRejected.Error() + ": the PSP's webhook wh_4 says NAO_REALIZADO for endToEndId " + why.EndToEndID +
		": " + why.Reason
	if got.Status != StatusRefused || got.Error != wantError {
		t.Errorf("after NAO_REALIZADO with a reason: %+v, want refused with the error %q", got, wantError)
	}
	if n := logs.count("durable: webhook applied"); n != 3 {
		t.Errorf("%d records of an applied webhook, want 3: one per change, none for the duplicates", n)
	}
	level, attrs, _ := logs.find("durable: webhook applied")
	want := map[string]string{"id": "settled", "key": settled.Key, "status": "REALIZADO", "webhook": "wh_1"}
	if level != slog.LevelInfo || !attrsAre(attrs, want) {
		t.Errorf("the first applied webhook's record: level %v, attributes %v; want Info with %v", level, attrs, want)
	}
}

// count returns how many records' messages hold msg.
func (h *keptRecords) count(msg string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, r := range h.records {
		if strings.Contains(r.Message, msg) {
			n++
		}
	}
	return n
}

// attrsAre reports whether attrs holds each string of want under its key.
func attrsAre(attrs map[string]slog.Value, want map[string]string) bool {
	for k, v := range want {
		if a, ok := attrs[k]; !ok || a.Kind() != slog.KindString || a.String() != v {
			return false
		}
	}
	return true
}

// ApplyWebhook passes "webhook-received" before it reads the intent and "webhook-stored" once
// its change has committed. A duplicate commits nothing and passes only the first.
func TestApplyWebhookCrashPoints(t *testing.T) {
	t.Parallel()
	db, _ := mustSQLite(t)
	var p *Payer[*sql.Tx]
	var points []string
	cfg := Config{Testing: TestingKnobs{CrashPoint: func(point string) {
		in, err := p.Intent(context.Background(), "a")
		if err != nil {
			t.Errorf("Intent() at %s: %v", point, err)
		}
		points = append(points, point+": "+string(in.Status))
	}}}
	p = mustPayer(t, db, cfg)
	in := mustPay(t, p, "a", payment(100))
	w := settledWebhook(in.Key)
	for i := range 2 {
		if err := p.ApplyWebhook(context.Background(), w); err != nil {
			t.Fatalf("ApplyWebhook(), delivery %d: %v", i+1, err)
		}
	}
	want := []string{"webhook-received: pending", "webhook-stored: settled", "webhook-received: settled"}
	if !slices.Equal(points, want) {
		t.Errorf("crash points passed = %q, want %q", points, want)
	}
}

// A webhook and the job's own lookup race: here the job commits first, between the webhook's
// read and its write. The webhook changes nothing and records no change.
func TestApplyWebhookThatLosesTheRaceChangesNothing(t *testing.T) {
	t.Parallel()
	db, _ := mustSQLite(t)
	logs := &keptRecords{}
	p := mustPayer(t, db, Config{Logger: slog.New(logs)})
	in := mustPay(t, p, "a", payment(100))
	// The job's settlement commits in the webhook's write, before it: the webhook's row is
	// left as the job made it.
	q := `CREATE TRIGGER job_first BEFORE UPDATE ON pix_intent WHEN NEW.end_to_end_id = 'E-webhook' BEGIN
		UPDATE pix_intent SET status = 'settled', end_to_end_id = 'E-job' WHERE id = OLD.id;
		SELECT RAISE(IGNORE); END`
	if _, err := db.Exec(q); err != nil {
		t.Fatal(err)
	}
	w := settledWebhook(in.Key)
	w.EndToEndID = "E-webhook"
	if err := p.ApplyWebhook(context.Background(), w); err != nil {
		t.Fatalf("ApplyWebhook() = %v, want nil", err)
	}
	if got := mustIntent(t, p, "a"); got.Status != StatusSettled || got.EndToEndID != "E-job" {
		t.Errorf("the intent is %+v, want settled by the job as E-job", got)
	}
	if n := logs.count("durable: webhook applied"); n != 0 {
		t.Errorf("%d records of an applied webhook, want none", n)
	}
}

// An intent pending past MaxAge, listed as overdue, is still pending: its webhook completes it.
func TestApplyWebhookCompletesAnOverdueIntent(t *testing.T) {
	t.Parallel()
	db, _ := mustSQLite(t)
	p := mustPayer(t, db, Config{MaxAge: time.Hour})
	in := mustPay(t, p, "a", payment(100))
	p.now = func() time.Time { return time.Now().Add(2 * time.Hour) }
	ctx := context.Background()
	if got, _ := p.Intent(ctx, "a"); got.Status != StatusOverdue {
		t.Fatalf("the intent is %s, want overdue", got.Status)
	}
	w := settledWebhook(in.Key)
	if err := p.ApplyWebhook(ctx, w); err != nil {
		t.Fatalf("ApplyWebhook() = %v", err)
	}
	if got, _ := p.Intent(ctx, "a"); got.Status != StatusSettled || got.EndToEndID != w.EndToEndID {
		t.Errorf("after the webhook: %+v, want settled as %s", got, w.EndToEndID)
	}
}

// A webhook the database cannot read or record fails with the database's error, never
// pix.ErrUnknownPayment, which the PSP would take as final. Nothing changes, and the PSP's next
// delivery applies it.
func TestApplyWebhookReportsStorageFailures(t *testing.T) {
	t.Parallel()
	db, _ := mustSQLite(t)
	p := mustPayer(t, db, Config{})
	in := mustPay(t, p, "a", payment(100))
	w := settledWebhook(in.Key)
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	err := p.ApplyWebhook(ended, w)
	if want := "durable: read the intent of key " + in.Key + ": context canceled"; err == nil || err.Error() != want ||
		!errors.Is(err, context.Canceled) {
		t.Errorf("ApplyWebhook(an ended context) = %v, want %q wrapping context.Canceled", err, want)
	}
	lift := failWrites(t, db, "NEW.status = 'settled'")
	err = p.ApplyWebhook(context.Background(), w)
	var e *sqlite.Error
	if prefix := `durable: record webhook wh_1 for intent "a": `; !errors.As(err, &e) ||
		e.Code() != sqlite3.SQLITE_CONSTRAINT_TRIGGER || !strings.HasPrefix(err.Error(), prefix) {
		t.Errorf("ApplyWebhook(a refused write) = %v, want an error %q... wrapping the trigger's refusal", err, prefix)
	}
	if got := mustIntent(t, p, "a"); got.Status != StatusPending {
		t.Errorf("after the failures the intent is %s, want pending", got.Status)
	}
	lift()
	if err := p.ApplyWebhook(context.Background(), w); err != nil {
		t.Fatalf("ApplyWebhook() again = %v", err)
	}
	if got := mustIntent(t, p, "a"); got.Status != StatusSettled {
		t.Errorf("after the next delivery the intent is %s, want settled", got.Status)
	}
}

// A webhook that cannot be applied says why and changes nothing.
func TestApplyWebhookRefusesWhatIsNotOurs(t *testing.T) {
	t.Parallel()
	db, _ := mustSQLite(t)
	logs := &keptRecords{}
	p := mustPayer(t, db, Config{Logger: slog.New(logs)})
	ctx := context.Background()
	in := mustPay(t, p, "a", payment(100))
	// An earlier key that LIKE's wildcards would match, were they taken for a key.
	if _, err := p.db.ExecPool(ctx, `UPDATE pix_intent SET past_keys = $2 WHERE id = $1`, "a", uuid.NewString()); err != nil {
		t.Fatal(err)
	}
	ok := settledWebhook(in.Key)
	for _, tt := range []struct {
		name string
		edit func(*pix.Webhook)
		want error
	}{
		{"a key no intent has used", func(w *pix.Webhook) { w.IdempotencyKey = uuid.NewString() }, pix.ErrUnknownPayment},
		{"a key that is not ours", func(w *pix.Webhook) { w.IdempotencyKey = "order-1" }, pix.ErrUnknownPayment},
		{"a key with LIKE's wildcards", func(w *pix.Webhook) { w.IdempotencyKey = "%" }, pix.ErrUnknownPayment},
		{"a UUID's shape of LIKE's wildcards", func(w *pix.Webhook) { w.IdempotencyKey = "________-____-____-____-____________" },
			pix.ErrUnknownPayment},
		{"another valor", func(w *pix.Webhook) { w.AmountCents = 101 }, ErrWebhookMismatch},
	} {
		w := ok
		tt.edit(&w)
		if err := p.ApplyWebhook(ctx, w); !errors.Is(err, tt.want) {
			t.Errorf("%s: ApplyWebhook() = %v, want %v", tt.name, err, tt.want)
		}
		if got, _ := p.Intent(ctx, "a"); got.Status != StatusPending {
			t.Errorf("%s: the intent is %s, want it pending still", tt.name, got.Status)
		}
	}
	w := ok
	w.AmountCents = 101
	want := `durable: the webhook's valor is not its intent's: intent "a" pays 100 cents, the webhook wh_1 says 101`
	if err := p.ApplyWebhook(ctx, w); err == nil || err.Error() != want {
		t.Errorf("ApplyWebhook(another valor) = %v, want %q", err, want)
	}
	level, attrs, found := logs.find("durable: a webhook with another valor; nothing changed")
	if !found || level != slog.LevelError || attrs["webhook_cents"].Int64() != 101 || attrs["cents"].Int64() != 100 ||
		!attrsAre(attrs, map[string]string{"id": "a", "key": in.Key, "webhook": "wh_1"}) {
		t.Errorf("the mismatch's record: level %v, attributes %v (found %t); want Error with both valors and the ids",
			level, attrs, found)
	}
}

// A webhook under a key the intent gave up (a lookup proved it unpaid) changes nothing, and
// says so at Error.
func TestApplyWebhookForAnAbandonedKeyChangesNothing(t *testing.T) {
	t.Parallel()
	db, _ := mustSQLite(t)
	logs := &keptRecords{}
	p := mustPayer(t, db, Config{Logger: slog.New(logs)})
	ctx := context.Background()
	in := mustPay(t, p, "a", payment(100))
	if _, err := p.db.ExecPool(ctx, `UPDATE pix_intent SET past_keys = $2 WHERE id = $1`, "a", in.Key); err != nil {
		t.Fatal(err)
	}
	if _, err := p.db.ExecPool(ctx, `UPDATE pix_intent SET idempotency_key = $2 WHERE id = $1`, "a", uuid.NewString()); err != nil {
		t.Fatal(err)
	}
	w := settledWebhook(in.Key)
	if err := p.ApplyWebhook(ctx, w); err != nil {
		t.Errorf("ApplyWebhook() for an abandoned key = %v, want nil", err)
	}
	if got, _ := p.Intent(ctx, "a"); got.Status != StatusPending {
		t.Errorf("the intent is %s, want pending", got.Status)
	}
	level, attrs, ok := logs.find("durable: a webhook for a key the intent gave up")
	want := map[string]string{"id": "a", "webhook_key": in.Key, "status": "REALIZADO"}
	if !ok || level != slog.LevelError || !attrsAre(attrs, want) {
		t.Errorf("record: level %v, attributes %v, found %t; want an Error with %v", level, attrs, ok, want)
	}
}

// A PSP that accepts every payment and ends it later: each intent ends as the PSP ended it,
// once, whether its webhook or its own job attempt learns it first. Half the payments are in
// the PSP's rejected range.
func TestPendingPaymentsEndOnceByWebhookOrPolling(t *testing.T) {
	t.Parallel()
	for _, webhooks := range []bool{false, true} {
		cfg := pspConfig(psp.DefaultConfig().KeyTTL)
		cfg.CompleteAfter, cfg.RejectFromCents, cfg.RejectToCents = 30*time.Millisecond, 200, 299
		var mu sync.Mutex
		var payer func(psp.Ended)
		// OnEnd runs after the PSP's answer may have gone, so the test reads the ends from here.
		ends := make(chan psp.Ended, 6)
		cfg.OnEnd = func(e psp.Ended) {
			mu.Lock()
			deliver := payer
			mu.Unlock()
			if deliver != nil {
				deliver(e)
			}
			ends <- e
		}
		srv, err := psptest.NewServer(cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(srv.Close)
		l := ledger{srv: srv.Server, url: srv.URL, http: srv.HTTPClient()}
		db, _ := mustSQLite(t)
		logs := &keptRecords{}
		pcfg := l.config()
		pcfg.Logger = slog.New(logs)
		p := mustPayer(t, db, pcfg)
		applied := 0
		if webhooks {
			mu.Lock()
			payer = func(e psp.Ended) { // twice, as a PSP that retries may
				for range 2 {
					if err := p.ApplyWebhook(context.Background(), webhookOf(e)); err != nil {
						t.Errorf("ApplyWebhook(%+v) = %v", e, err)
					}
				}
				mu.Lock()
				applied++
				mu.Unlock()
			}
			mu.Unlock()
		}
		for i := range 6 {
			mustPay(t, p, string(rune('a'+i)), payment(int64(100+100*(i%2)))) // 1.00 settles, 2.00 is rejected
		}
		mustStart(t, p)
		all := awaitDone(t, p)
		byKey := map[string]psp.Ended{}
		for range 6 {
			select {
			case e := <-ends:
				if _, twice := byKey[e.IdempotencyKey]; twice {
					t.Errorf("webhooks %t: the PSP ended key %s twice", webhooks, e.IdempotencyKey)
				}
				byKey[e.IdempotencyKey] = e
			case <-time.After(stallAfter()):
				t.Fatalf("webhooks %t: the PSP reported %d ends, want 6", webhooks, len(byKey))
			}
		}
		for _, in := range all {
			e, ok := byKey[in.Key]
			want := map[string]Status{"REALIZADO": StatusSettled, "NAO_REALIZADO": StatusRefused}[e.Status]
			if !ok || in.Status != want || len(in.Keys) != 1 {
				t.Errorf("webhooks %t: intent %+v; the PSP ended its key as %+v (found %t)", webhooks, in, e, ok)
			}
			if in.Status == StatusSettled && in.EndToEndID != e.EndToEndID {
				t.Errorf("webhooks %t: intent %s settled as %s, the PSP as %s", webhooks, in.ID, in.EndToEndID, e.EndToEndID)
			}
		}
		st := l.srv.Stats()
		t.Logf("webhooks %t: %d payment requests and %d lookups for 6 payments", webhooks, st.Requests, st.Lookups)
		if n := len(l.settlements()); n != 3 {
			t.Errorf("webhooks %t: the ledger holds %d settlements, want 3", webhooks, n)
		}
		if level, _, ok := logs.find("durable: pending at the PSP"); !webhooks && (!ok || level != slog.LevelInfo) {
			t.Errorf("a pending answer's record: level %v (found %t), want Info", level, ok)
		}
		if _, _, ok := logs.find("durable: outcome unknown"); ok {
			t.Errorf("webhooks %t: a pending answer was logged as an unknown outcome", webhooks)
		}
		if webhooks && applied == 0 {
			t.Errorf("no webhook was applied")
		}
	}
}
