package psp

import (
	"container/list"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync/atomic"
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

// maxEvictions is the most expired keys one payment request forgets, besides its own key. A
// request stores at most one key, so the store still sheds its expired keys faster than it
// takes new ones, and no request pays for a long backlog.
const maxEvictions = 8

// book is the state that Reset starts afresh: the balance, the key store, and the records that
// outlive a key (ledger.go). The Server's mutex guards it.
type book struct {
	balance int64
	keys    map[scope]*entry
	maxKeys int
	keyTTL  time.Duration
	expiry  *list.List // of the committed *entry, in commit and so in expiry order

	maxRecords int                     // Config.MaxSettlements: the most settlements, and closed keys, kept
	ledger     []*Settlement           // the latest maxRecords settlements, in settlement order
	latest     map[scope]*Settlement   // the latest settlement in the ledger under each key
	closed     map[scope]*list.Element // the closed keys: a lookup found no payment under them
	closedList *list.List              // of the closed keys' scopes, in closing order

	stats Stats // its counters: Requests, Lookups, Shed, Dropped and MaxInFlight

	reports bool    // Config.OnEnd is set: the book keeps what ended for it
	ended   []Ended // what ended since the Server was last unlocked (see Server.unlock)
}

// scope is where a key lives: keys are per token.
type scope struct{ token, key string }

// scope is where s's key lives.
func (s *Settlement) scope() scope { return scope{s.Token, s.IdempotencyKey} }

// entry is a stored key. p is the payment it was first used for, as the Settlement it makes.
// The commit sets elem, SettledAt (of a refusal too), and EndToEndID if the payment settled.
// Each replay makes the answer again from p: the same bytes, for less memory than keeping it.
type entry struct {
	p    *Settlement
	elem *list.Element // in book.expiry once committed, nil while in flight
}

func newBook(cfg Config) *book {
	return &book{balance: cfg.BalanceCents, keys: map[scope]*entry{}, maxKeys: cfg.MaxKeys, keyTTL: cfg.KeyTTL,
		expiry: list.New(), maxRecords: cfg.MaxSettlements, latest: map[scope]*Settlement{},
		closed: map[scope]*list.Element{}, closedList: list.New(), reports: cfg.OnEnd != nil}
}

// reserve returns a new entry for p under sc, in flight, or the answer for sc if it is known,
// closed or if the store is full. It first forgets at most maxEvictions expired keys and sc
// itself if it has expired. A key expires at its commit time plus the key TTL, exactly.
func (b *book) reserve(sc scope, p payment, now time.Time) (*entry, answer) {
	b.evict(now)
	e := b.keys[sc]
	if e != nil && e.elem != nil && !now.Before(b.expiresAt(e)) {
		b.forget(e)
		e = nil
	}
	if e == nil {
		switch {
		case b.closed[sc] != nil:
			return nil, fail(codeIdempotencyKeyClosed,
				"a status lookup found no payment under this Idempotency-Key and closed it; use a new key").answer()
		case len(b.keys) >= b.maxKeys:
			return nil, b.fullAnswer(now)
		}
		e = &entry{p: &Settlement{Token: sc.token, IdempotencyKey: sc.key,
			AmountCents: p.cents, PixKey: p.chave, Description: p.info}}
		b.keys[sc] = e
		return e, answer{}
	}
	if (payment{e.p.AmountCents, e.p.PixKey, e.p.Description}) != p {
		return nil, fail(codeIdempotencyKeyReused,
			"this Idempotency-Key was used for a different payment").answer()
	}
	if e.elem == nil {
		return nil, inUse()
	}
	replay := e.answer()
	replay.replayed = true
	return nil, replay
}

// commit settles e's payment at now (or refuses it for insufficient funds), keeps e until it
// expires and returns its answer. Check and debit happen together, under the Server's mutex.
func (b *book) commit(e *entry, now time.Time, ispb string) answer {
	e.p.SettledAt = now
	e.elem = b.expiry.PushBack(e)
	if e.p.AmountCents <= b.balance {
		b.balance -= e.p.AmountCents
		e.p.EndToEndID = newEndToEndID(ispb, now)
		b.record(e.p)
		b.end(e.p, statusSettled)
	}
	return e.answer()
}

// evict forgets at most maxEvictions keys expired at now, the oldest first.
func (b *book) evict(now time.Time) {
	for range maxEvictions {
		oldest := b.expiry.Front()
		if oldest == nil || now.Before(b.expiresAt(oldest.Value.(*entry))) {
			return
		}
		b.forget(oldest.Value.(*entry))
	}
}

// expiresAt is when the committed e expires.
func (b *book) expiresAt(e *entry) time.Time { return e.p.SettledAt.Add(b.keyTTL) }

// forget removes the committed e from the store.
func (b *book) forget(e *entry) {
	delete(b.keys, e.p.scope())
	b.expiry.Remove(e.elem)
}

// fullAnswer is the 503 of a new key refused because the store is full. Its Retry-After is
// the time until the oldest committed key expires, or the key TTL if every key is in flight.
func (b *book) fullAnswer(now time.Time) answer {
	wait := b.keyTTL
	if oldest := b.expiry.Front(); oldest != nil {
		wait = b.expiresAt(oldest.Value.(*entry)).Sub(now)
	}
	f := fail(codeKeyStoreFull, "the PSP stores %d Idempotency-Keys, its limit, and none has expired; retry later",
		b.maxKeys)
	f.header = retryAfter(wait)
	return f.answer()
}

// inUse is the 409 of a key in flight.
func inUse() answer {
	return fail(codeIdempotencyKeyInUse, "a request with this Idempotency-Key is still being processed; retry later").answer()
}

// answer is the answer of the committed e: its 201, or its refusal for insufficient funds.
func (e *entry) answer() answer {
	if e.p.EndToEndID == "" {
		return fail(codeInsufficientFunds,
			"valor %s exceeds the payer's balance", FormatAmount(e.p.AmountCents)).answer()
	}
	return e.p.receiptAnswer(http.StatusCreated)
}

// endToEndSeq numbers endToEndIds for the life of the process, across Servers and Resets.
// It starts at a random point so that two runs of cmd/psp are unlikely to repeat each other.
var endToEndSeq atomic.Uint64

func init() { endToEndSeq.Store(rand.Uint64()) }

// newEndToEndID returns a fresh endToEndId settled at t: "E", the 8-digit ISPB, t in UTC as
// yyyyMMddHHmm and 11 base-36 characters of a process-wide sequence, 32 characters in all. The
// sequence makes it unique within the process (it would repeat after 36^11 ids).
func newEndToEndID(ispb string, t time.Time) string {
	return "E" + ispb + t.UTC().Format("200601021504") + base36(endToEndSeq.Add(1))
}

// base36 is the low 11 base-36 digits of n, zero-padded.
func base36(n uint64) string {
	const wrap = 131621703842267136 // 36^11
	return fmt.Sprintf("%011s", strconv.FormatUint(n%wrap, 36))
}
