package psp

import (
	"net/http"
	"time"
)

// Settlement is one settled payment in the ledger.
type Settlement struct {
	Token          string    // the bearer token that paid
	IdempotencyKey string    // the key, unquoted
	EndToEndID     string    // the endToEndId of the 201 answer
	AmountCents    int64     // valor, in cents
	PixKey         string    // chave
	Description    string    // infoPagador; "" if absent
	SettledAt      time.Time // in UTC; the answer's horario
}

// book is the state that Reset starts afresh: the balance, the ledger and the key store. The
// Server's mutex guards it.
type book struct {
	balance  int64
	ledger   []Settlement
	keys     map[scope]*entry
	expiries []expiry // one per completed key, in completion order and so in expiry order

	requests, shed int64 // counters of Stats
	maxInFlight    int
}

// scope is where a key lives: keys are per token.
type scope struct{ token, key string }

// entry is a key's record: the payment it was first used for, and its answer once the payment
// has been committed (nil while it is in flight).
type entry struct {
	payment payment
	answer  *answer
}

type expiry struct {
	scope scope
	at    time.Time
}

func newBook(balanceCents int64) *book {
	return &book{balance: balanceCents, keys: map[scope]*entry{}}
}

// find returns the entry of sc, or nil, after forgetting every key expired at now. A key
// expires at its completion time plus the key TTL, exactly.
func (b *book) find(sc scope, now time.Time) *entry {
	for len(b.expiries) > 0 && !now.Before(b.expiries[0].at) {
		delete(b.keys, b.expiries[0].scope)
		b.expiries = b.expiries[1:]
	}
	return b.keys[sc]
}

// commit settles the payment reserved under sc (or refuses it for insufficient funds), stores
// the answer under sc until expires and returns it. Check and debit happen together, under
// the Server's mutex.
func (b *book) commit(sc scope, s Settlement, expires time.Time) answer {
	a := b.debit(s)
	b.keys[sc].answer = &a
	b.expiries = append(b.expiries, expiry{sc, expires})
	return a
}

func (b *book) debit(s Settlement) answer {
	if s.AmountCents > b.balance {
		return errorAnswer(fail(codeInsufficientFunds,
			"valor %s exceeds the payer's balance", FormatAmount(s.AmountCents)))
	}
	b.balance -= s.AmountCents
	b.ledger = append(b.ledger, s)
	return jsonAnswer(http.StatusCreated, jsonContentType, receiptOf(s))
}

// receipt is the body of a 201 answer.
type receipt struct {
	EndToEndID  string `json:"endToEndId"`
	Valor       string `json:"valor"`
	Chave       string `json:"chave"`
	InfoPagador string `json:"infoPagador,omitempty"`
	Status      string `json:"status"`
	Horario     string `json:"horario"`
}

func receiptOf(s Settlement) receipt {
	return receipt{
		EndToEndID:  s.EndToEndID,
		Valor:       FormatAmount(s.AmountCents),
		Chave:       s.PixKey,
		InfoPagador: s.Description,
		Status:      "REALIZADO",
		Horario:     s.SettledAt.Format(time.RFC3339Nano),
	}
}
