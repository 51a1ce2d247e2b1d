package openfinance

import (
	"container/list"
	"time"
)

// store is a map whose entries are kept in the order they were added, so that the oldest can
// expire or be dropped first. An entry expires ttl after it was added; a zero ttl keeps it
// until it is dropped. It holds at most max entries. It is not safe for concurrent use: the
// Server's mutex guards every store.
type store[K comparable, V any] struct {
	ttl   time.Duration
	max   int
	byKey map[K]*list.Element
	order *list.List // of *item[K, V], the oldest first
}

type item[K comparable, V any] struct {
	key   K
	value V
	added time.Time
}

func newStore[K comparable, V any](ttl time.Duration, maxEntries int) *store[K, V] {
	return &store[K, V]{ttl: ttl, max: maxEntries, byKey: map[K]*list.Element{}, order: list.New()}
}

// get returns the value under k, or false if there is none or it has expired at now.
func (s *store[K, V]) get(k K, now time.Time) (V, bool) {
	s.expire(now)
	e, ok := s.byKey[k]
	if !ok {
		var zero V
		return zero, false
	}
	return e.Value.(*item[K, V]).value, true
}

// add puts v under k, which holds nothing live, at now. It reports false, and adds nothing,
// when the store holds max live entries: no entry is forgotten before it expires.
func (s *store[K, V]) add(k K, v V, now time.Time) bool {
	s.expire(now)
	if len(s.byKey) >= s.max {
		return false
	}
	s.byKey[k] = s.order.PushBack(&item[K, V]{k, v, now})
	return true
}

// push puts v under k, which holds nothing live, at now, and drops the oldest entry first if
// the store holds max entries.
func (s *store[K, V]) push(k K, v V, now time.Time) {
	s.expire(now)
	if len(s.byKey) >= s.max {
		s.remove(s.order.Front())
	}
	s.byKey[k] = s.order.PushBack(&item[K, V]{k, v, now})
}

// delete forgets k.
func (s *store[K, V]) delete(k K) {
	if e, ok := s.byKey[k]; ok {
		s.remove(e)
	}
}

// expire forgets the entries expired at now, the oldest first. Entries are added in the order
// of their times, so they expire in the order they were added.
func (s *store[K, V]) expire(now time.Time) {
	if s.ttl <= 0 {
		return
	}
	for e := s.order.Front(); e != nil && !now.Before(e.Value.(*item[K, V]).added.Add(s.ttl)); e = s.order.Front() {
		s.remove(e)
	}
}

func (s *store[K, V]) remove(e *list.Element) {
	delete(s.byKey, s.order.Remove(e).(*item[K, V]).key)
}
