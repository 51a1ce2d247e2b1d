package durable

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"pixretry/pix"
)

func TestPayTxRolledBackLeavesNothing(t *testing.T) {
	t.Parallel()
	db, _ := mustSQLite(t)
	p := mustPayer(t, db, Config{})
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.PayTx(context.Background(), tx, "order-1", payment(100)); err != nil {
		t.Fatalf("PayTx() error = %v", err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Intent(context.Background(), "order-1"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Intent() after a rollback: error = %v, want ErrNotFound", err)
	}
	var jobs int
	if err := db.QueryRow("SELECT count(*) FROM river_job").Scan(&jobs); err != nil || jobs != 0 {
		t.Errorf("river_job holds %d jobs (error %v) after a rollback, want 0", jobs, err)
	}
}

func TestPayTxSameIDSamePaymentReturnsStored(t *testing.T) {
	t.Parallel()
	db, _ := mustSQLite(t)
	p := mustPayer(t, db, Config{})
	first := mustPay(t, p, "order-1", payment(100))
	again := mustPay(t, p, "order-1", payment(100))
	if again.Key != first.Key || again.Status != StatusPending || again.Payment != first.Payment {
		t.Errorf("Pay() again = %+v, want the stored %+v", again, first)
	}
	var jobs int
	if err := db.QueryRow("SELECT count(*) FROM river_job").Scan(&jobs); err != nil || jobs != 1 {
		t.Errorf("river_job holds %d jobs (error %v), want 1", jobs, err)
	}
}

func TestPayTxRefusesBadInput(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 141)
	tests := []struct {
		name    string
		id      string
		payment pix.Payment
		want    error
	}{
		{"same id, other amount", "stored", payment(101), ErrIDReused},
		{"same id, other key", "stored", pix.Payment{AmountCents: 100, PixKey: "+5511987654321", Description: "rent"}, ErrIDReused},
		{"same id, other description", "stored", pix.Payment{AmountCents: 100, PixKey: "pix@example.com"}, ErrIDReused},
		{"zero amount", "new", payment(0), pix.ErrInvalidPayment},
		{"negative amount", "new", payment(-1), pix.ErrInvalidPayment},
		{"amount over the limit", "new", payment(1_000_000_000_000), pix.ErrInvalidPayment},
		{"bad pix key", "new", pix.Payment{AmountCents: 1, PixKey: "nobody"}, pix.ErrInvalidPayment},
		{"long description", "new", pix.Payment{AmountCents: 1, PixKey: "pix@example.com", Description: long}, pix.ErrInvalidPayment},
		{"description not UTF-8", "new", pix.Payment{AmountCents: 1, PixKey: "pix@example.com", Description: "\xff"}, pix.ErrInvalidPayment},
		{"empty id", "", payment(100), ErrInvalidID},
		{"id over 255 bytes", strings.Repeat("i", 256), payment(100), ErrInvalidID},
	}
	db, _ := mustSQLite(t)
	p := mustPayer(t, db, Config{})
	stored := mustPay(t, p, "stored", payment(100))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := p.Pay(context.Background(), tt.id, tt.payment); !errors.Is(err, tt.want) {
				t.Fatalf("Pay(%q, %+v) error = %v, want %v", tt.id, tt.payment, err, tt.want)
			}
			all, err := collect(p.Intents(context.Background()))
			if diff := cmp.Diff([]Intent{stored}, all); err != nil || diff != "" {
				t.Errorf("Intents() error = %v, mismatch (-want +got):\n%s", err, diff)
			}
		})
	}
}

func TestPayTxKeepsCallersTransactionUsable(t *testing.T) {
	t.Parallel()
	db, _ := mustSQLite(t)
	p := mustPayer(t, db, Config{})
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.PayTx(context.Background(), tx, "bad", payment(0)); !errors.Is(err, pix.ErrInvalidPayment) {
		t.Fatalf("PayTx(invalid) error = %v, want pix.ErrInvalidPayment", err)
	}
	if _, err := p.PayTx(context.Background(), tx, "good", payment(100)); err != nil {
		t.Fatalf("PayTx() after a refused one: error = %v", err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	all, err := collect(p.Intents(context.Background()))
	if err != nil || len(all) != 1 || all[0].ID != "good" {
		t.Errorf("Intents() = %+v, %v; want only good", all, err)
	}
}

func TestPayTxTakesIDsUpTo255Bytes(t *testing.T) {
	t.Parallel()
	db, _ := mustSQLite(t)
	p := mustPayer(t, db, Config{})
	id := strings.Repeat("i", 255)
	if in := mustPay(t, p, id, payment(100)); in.ID != id {
		t.Errorf("Pay() = %+v, want id %q", in, id)
	}
}

func TestStartWithoutClientFails(t *testing.T) {
	t.Parallel()
	db, _ := mustSQLite(t)
	p := mustPayer(t, db, Config{})
	if err := p.Start(context.Background()); !errors.Is(err, ErrNoClient) {
		t.Errorf("Start() error = %v, want ErrNoClient", err)
	}
}

// A reused id says what the stored intent pays, in a payment's words, not a Go value.
func TestPayTxSaysWhatAReusedIDHolds(t *testing.T) {
	t.Parallel()
	db, _ := mustSQLite(t)
	p := mustPayer(t, db, Config{})
	mustPay(t, p, "stored", pix.Payment{AmountCents: 2550, PixKey: "pix@example.com", Description: `o "aluguel"`})
	mustPay(t, p, "bare", pix.Payment{AmountCents: 7, PixKey: "+5511987654321"})
	for id, want := range map[string]string{
		"stored": `durable: id already stored with another payment: "stored" holds R$ 25.50 to the Pix key pix@example.com, described "o \"aluguel\""`,
		"bare":   `durable: id already stored with another payment: "bare" holds R$ 0.07 to the Pix key +5511987654321`,
	} {
		_, err := p.Pay(context.Background(), id, payment(1))
		if err == nil || err.Error() != want {
			t.Errorf("Pay(%q) with another payment: error = %v, want %s", id, err, want)
		}
	}
}
