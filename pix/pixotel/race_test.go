//go:build race

package pixotel_test

// race reports a race-enabled build, whose runtime allocates on its own and makes allocation
// counts of a whole payment vary.
const race = true
