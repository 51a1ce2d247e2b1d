package psp

// The records that outlive a key: the ledger, the latest settlement under each key, and the
// closed keys. A status lookup reads them long after the key store has forgotten the key. Each
// is bounded by Config.MaxSettlements, the oldest dropped first.

// record appends s to the ledger as the latest settlement under its key. It first drops the
// ledger's oldest settlement if the ledger holds maxRecords, and the lookup then forgets it too.
func (b *book) record(s *Settlement) {
	if len(b.ledger) == b.maxRecords {
		oldest := b.ledger[0]
		if sc := oldest.scope(); b.latest[sc] == oldest {
			delete(b.latest, sc)
		}
		b.ledger[0] = nil // let it go: the key store may still hold it, nothing else does
		b.ledger = b.ledger[1:]
		b.stats.Dropped++
	}
	b.ledger = append(b.ledger, s)
	b.latest[s.scope()] = s
}

// closeKey records that a lookup found no payment under sc, so that no payment is ever made
// under it: reserve refuses a new entry under a closed key. It first drops the oldest closed
// key if maxRecords are held.
func (b *book) closeKey(sc scope) {
	if b.closedList.Len() == b.maxRecords {
		delete(b.closed, b.closedList.Remove(b.closedList.Front()).(scope))
	}
	b.closed[sc] = b.closedList.PushBack(sc)
}
