package psp

import (
	"container/heap"
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
	EndToEndID     string    // the endToEndId of its answers, made at acceptance or handed over (WithEndToEndID)
	AmountCents    int64     // valor, in cents
	PixKey         string    // chave
	Description    string    // infoPagador; "" if absent
	SettledAt      time.Time // in UTC; the horario of its 201 and of a lookup's 200
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
	expiry  *list.List // of the ended or refused *entry, in the order they ended and so expire

	maxRecords int                     // Config.MaxSettlements: the most settlements, and closed keys, kept
	ledger     []*Settlement           // the latest maxRecords settlements, in settlement order
	latest     map[scope]*Settlement   // the latest settlement in the ledger under each key
	closed     map[scope]*list.Element // the closed keys: a lookup found no payment under them
	closedList *list.List              // of the closed keys' scopes, in closing order

	completeAfter        time.Duration // Config.CompleteAfter
	rejectFrom, rejectTo int64         // Config.RejectFromCents and RejectToCents
	pending              pendingQueue  // the pending payments, the next to end first (pending.go)
	accepted             uint64        // the payments accepted pending so far, which orders those due at once

	stats Stats // its counters: Requests, Lookups, Shed, Dropped, MaxInFlight and Rejected

	reports bool    // Config.OnEnd is set: the book keeps what ended for it
	ended   []Ended // what ended since the Server was last unlocked (see Server.unlock)
}

// scope is where a key lives: keys are per token.
type scope struct{ token, key string }

// scope is where s's key lives.
func (s *Settlement) scope() scope { return scope{s.Token, s.IdempotencyKey} }

// entry is a stored key. p is the payment it was first used for, as the Settlement it makes.
// Its EndToEndID is the one its front end handed over (WithEndToEndID), from its reservation,
// if any. The commit sets SettledAt (of a refusal too) and, if the payment is accepted and has
// no EndToEndID, a fresh one. A payment accepted pending keeps its acceptance in SettledAt
// until it ends, then its end. Each replay makes the answer again from p: the same bytes, for
// less memory than keeping it.
type entry struct {
	p     *Settlement
	phase phase
	elem  *list.Element // in book.expiry once ended or refused, nil before
	end   *course       // how a payment accepted pending ends; nil for one that never was
}

// phase is where a stored key's payment stands.
type phase uint8

const (
	phaseInFlight phase = iota // reserved, not yet committed
	phaseRefused               // refused for insufficient funds
	phasePending               // accepted, its valor held: EM_PROCESSAMENTO
	phaseSettled               // REALIZADO, in the ledger
	phaseRejected              // accepted, then rejected: NAO_REALIZADO, its valor released
)

func newBook(cfg Config) *book {
	return &book{balance: cfg.BalanceCents, keys: map[scope]*entry{}, maxKeys: cfg.MaxKeys, keyTTL: cfg.KeyTTL,
		expiry: list.New(), maxRecords: cfg.MaxSettlements, latest: map[scope]*Settlement{},
		closed: map[scope]*list.Element{}, closedList: list.New(),
		completeAfter: cfg.CompleteAfter, rejectFrom: cfg.RejectFromCents, rejectTo: cfg.RejectToCents,
		reports: cfg.OnEnd != nil}
}

// reserve returns a new entry for p under sc, in flight, or the answer for sc if it is known,
// closed or if the store is full. It first forgets at most maxEvictions expired keys and sc
// itself if it has expired. A key expires when its payment ends (or is refused) plus the key
// TTL, exactly: a pending payment's key never expires.
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
	if e.phase == phaseInFlight {
		return nil, inUse()
	}
	replay := e.answer()
	replay.replayed = true
	return nil, replay
}

// commit accepts e's payment at now, under the fault f the request met, or refuses it for
// insufficient funds, and returns its answer. Check and debit happen together, under the
// Server's mutex. An accepted payment settles at once, or stays pending as b.course says.
func (b *book) commit(e *entry, now time.Time, ispb string, f Fault) answer {
	e.p.SettledAt = now
	if e.p.AmountCents > b.balance {
		e.phase = phaseRefused
		e.elem = b.expiry.PushBack(e)
		return e.answer()
	}
	b.balance -= e.p.AmountCents
	if e.p.EndToEndID == "" {
		e.p.EndToEndID = newEndToEndID(ispb, now)
	}
	if e.end = b.course(e.p.AmountCents, now, f); e.end != nil {
		e.phase = phasePending
		heap.Push(&b.pending, e)
		return e.answer()
	}
	b.finish(e, statusSettled)
	return e.answer()
}

// finish ends e's accepted payment at its SettledAt with status: settled, in the ledger, or
// rejected, its valor released. e's key then expires in the key TTL.
func (b *book) finish(e *entry, status string) {
	if status == statusRejected {
		e.phase = phaseRejected
		b.balance += e.p.AmountCents
		b.stats.Rejected++
	} else {
		e.phase = phaseSettled
		b.record(e.p)
	}
	e.elem = b.expiry.PushBack(e)
	b.end(e.p, status)
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

// expiresAt is when e, ended or refused, expires.
func (b *book) expiresAt(e *entry) time.Time { return e.p.SettledAt.Add(b.keyTTL) }

// forget removes e, ended or refused, from the store.
func (b *book) forget(e *entry) {
	delete(b.keys, e.p.scope())
	b.expiry.Remove(e.elem)
}

// fullAnswer is the 503 of a new key refused because the store is full. Its Retry-After is
// the time until the oldest ended key expires, else until the first pending payment's key
// would, else the key TTL (every key is in flight).
func (b *book) fullAnswer(now time.Time) answer {
	wait := b.keyTTL
	if oldest := b.expiry.Front(); oldest != nil {
		wait = b.expiresAt(oldest.Value.(*entry)).Sub(now)
	} else if len(b.pending) > 0 {
		wait = b.pending[0].end.due.Add(b.keyTTL).Sub(now)
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

// answer is the answer of the committed e to its request and its replays: its 201, its 202
// while pending, or its refusal for insufficient funds or its rejection.
func (e *entry) answer() answer {
	switch e.phase {
	case phaseRefused:
		return fail(codeInsufficientFunds,
			"valor %s exceeds the payer's balance", FormatAmount(e.p.AmountCents)).answer()
	case phasePending:
		return e.p.statusAnswer(http.StatusAccepted, statusPending, "")
	case phaseRejected:
		return fail(codePaymentRejected, "the payment was accepted, then rejected at %s: %s; nothing was paid, "+
			"and a payment under a new key pays anew", e.p.SettledAt.Format(time.RFC3339Nano), e.end.motivo).answer()
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
