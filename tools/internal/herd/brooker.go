package herd

import (
	"math"
	"math/rand/v2"
	"strconv"
)

// Algorithm is a backoff algorithm of the contention model (see Contend).
type Algorithm int

// The five algorithms of the contention model. Attempt n counts the failed writes so far
// (1 on the first retry).
const (
	// None retries at once.
	None Algorithm = iota
	// Exponential waits min(cap, base·2^n).
	Exponential
	// FullJitter waits U(0, min(cap, base·2^n)).
	FullJitter
	// EqualJitter waits v/2 + U(0, v/2), v = min(cap, base·2^n).
	EqualJitter
	// Decorr waits s = min(cap, U(base, 3s)), s starting at base.
	Decorr
)

// Algorithms lists every Algorithm, in their order of declaration.
var Algorithms = []Algorithm{None, Exponential, FullJitter, EqualJitter, Decorr}

// String is the algorithm's label in brooker.csv: None, Exponential, FullJitter, EqualJitter
// or Decorr.
func (a Algorithm) String() string {
	switch a {
	case None:
		return "None"
	case Exponential:
		return "Exponential"
	case FullJitter:
		return "FullJitter"
	case EqualJitter:
		return "EqualJitter"
	case Decorr:
		return "Decorr"
	}
	return "Algorithm(" + strconv.Itoa(int(a)) + ")"
}

// The constants of the contention model, in its time unit.
const (
	contentionBase = 5.0
	contentionCap  = 2000.0
	hopMean        = 10.0
	hopStdDev      = 2.0
)

// Contention is the outcome of one run of the contention model.
type Contention struct {
	// Calls is the number of writes the server received.
	Calls int
	// Time is when the last client received its successful write's answer.
	Time float64
}

// Contend runs the contention model once: n clients, all starting at time 0, each update one
// row once with optimistic concurrency. A cycle is a read (a hop to the server, a hop back)
// then a write of the version read (a hop each way); the write succeeds only if the version
// is unchanged, else the client backs off under a and starts a new cycle, its backoff added
// to the delay of the cycle's first hop. There is no retry limit. Every hop takes
// |Normal(10, 2)|, drawn from r.
func Contend(n int, a Algorithm, r *rand.Rand) Contention {
	s := &contention{r: r, version: 0, clients: make([]contender, n)}
	for c := range s.clients {
		s.clients[c].sleep = contentionBase
		s.push(s.hop(), c, read)
	}
	var out Contention
	for len(s.queue) > 0 {
		e := s.queue.pop()
		cl := &s.clients[e.client]
		switch e.kind {
		case read: // the read arrives; the write it leads to arrives two hops later
			cl.seen = s.version
			s.push(e.at+s.hop()+s.hop(), e.client, write)
		case write:
			out.Calls++
			answered := e.at + s.hop()
			if cl.seen == s.version {
				s.version++
				out.Time = max(out.Time, answered)
				continue
			}
			cl.failures++
			s.push(answered+cl.backoff(a, r)+s.hop(), e.client, read)
		}
	}
	return out
}

// contention is the state of one run: the row's version, the clients and the events to come.
type contention struct {
	r       *rand.Rand
	version int
	clients []contender
	queue   events
	seq     uint64
}

// contender is one client: its failed writes so far, the version it read, its last
// decorrelated backoff.
type contender struct {
	failures int
	seen     int
	sleep    float64
}

// hop is the delay of one network hop: |Normal(10, 2)|.
func (s *contention) hop() float64 { return math.Abs(hopMean + hopStdDev*s.r.NormFloat64()) }

func (s *contention) push(at float64, client int, k eventKind) {
	s.seq++
	s.queue.push(event{at: at, seq: s.seq, client: client, kind: k})
}

// backoff is the wait before the client's next cycle, after failures failed writes.
func (c *contender) backoff(a Algorithm, r *rand.Rand) float64 {
	v := math.Min(contentionCap, contentionBase*math.Exp2(float64(c.failures)))
	switch a {
	case Exponential:
		return v
	case FullJitter:
		return v * r.Float64()
	case EqualJitter:
		return v/2 + v/2*r.Float64()
	case Decorr:
		c.sleep = math.Min(contentionCap, contentionBase+(3*c.sleep-contentionBase)*r.Float64())
		return c.sleep
	}
	return 0
}

type eventKind uint8

const (
	read  eventKind = iota // a read reaches the server
	write                  // a write reaches the server
)

// event is something reaching the server at a time; seq breaks ties in push order.
type event struct {
	at     float64
	seq    uint64
	client int
	kind   eventKind
}

// events is a min-heap of events by time, then seq.
type events []event

func (e event) before(f event) bool { return e.at < f.at || e.at == f.at && e.seq < f.seq }

func (q *events) push(e event) {
	*q = append(*q, e)
	h := *q
	for i := len(h) - 1; i > 0; {
		parent := (i - 1) / 2
		if !h[i].before(h[parent]) {
			break
		}
		h[i], h[parent] = h[parent], h[i]
		i = parent
	}
}

func (q *events) pop() event {
	h := *q
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	for i := 0; ; {
		least, l, r := i, 2*i+1, 2*i+2
		if l < len(h) && h[l].before(h[least]) {
			least = l
		}
		if r < len(h) && h[r].before(h[least]) {
			least = r
		}
		if least == i {
			break
		}
		h[i], h[least] = h[least], h[i]
		i = least
	}
	*q = h
	return top
}
