package herd

import (
	"math/rand/v2"
	"runtime"
	"sync"
)

// ContentionCell is the mean outcome of Runs runs of the contention model for one number of
// clients and one algorithm.
type ContentionCell struct {
	Clients   int
	Algorithm Algorithm
	MeanCalls float64
	MeanTime  float64
	Runs      int
}

// SweepContention runs the contention model runs times for every number of clients and every
// algorithm, on all CPUs. Cell i draws from its own source, seeded by seed and i, so the
// result does not depend on the scheduling.
func SweepContention(clients []int, runs int, seed uint64) []ContentionCell {
	cells := make([]ContentionCell, 0, len(clients)*len(Algorithms))
	for _, n := range clients {
		for _, a := range Algorithms {
			cells = append(cells, ContentionCell{Clients: n, Algorithm: a, Runs: runs})
		}
	}
	work := make(chan int)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range work {
				cells[i].measure(rand.New(rand.NewPCG(seed, uint64(i))))
			}
		})
	}
	for i := range cells {
		work <- i
	}
	close(work)
	wg.Wait()
	return cells
}

// measure fills in the means of c's runs, drawn from r.
func (c *ContentionCell) measure(r *rand.Rand) {
	var calls, time float64
	for range c.Runs {
		out := Contend(c.Clients, c.Algorithm, r)
		calls += float64(out.Calls)
		time += out.Time
	}
	c.MeanCalls, c.MeanTime = calls/float64(c.Runs), time/float64(c.Runs)
}
