// Package fixture holds every token that gremlins v0.6.0 mutates, in every place it looks
// for one, and a few tokens it leaves alone. TestTokensMatchGremlinsDryRun holds
// mutant.Tokens to gremlins' dry run of it.
package fixture

// mask is a constant expression: gremlins mutates its operators too.
const mask = 1<<4 - 1

// weights is a package-level initializer, with a unary minus and a unary plus.
var weights = [...]int{2 * 3, 7 / 2, 7 % 4, -1, +2}

// double is a package-level closure.
var double = func(x int) int { return x * 2 }

// Number is a constraint: its union is a binary | and its ~ is left alone.
type Number interface{ ~int | ~int64 }

// block's length is an expression.
type block [2 << 1]byte

// Sum adds xs.
func Sum[T Number](xs ...T) T {
	var s T
	for _, x := range xs {
		s += x
	}
	return s
}

// A Counter holds a number that Apply changes with every op-assign.
type Counter struct{ n int }

// Apply runs every op-assign, ++ and -- on the counter and returns its number.
func (c *Counter) Apply(v int) int {
	c.n += v
	c.n -= 1
	c.n *= 3
	c.n /= 2
	c.n %= 1000
	c.n &= 0xff
	c.n |= 1
	c.n ^= 2
	c.n &^= 4
	c.n <<= 2
	c.n >>= 1
	c.n++
	c.n--
	return c.n
}

// Arith uses every arithmetic operator, binary and unary.
func Arith(a, b int) int {
	const half = mask / 2
	return (a+b)*(a-b)/(b|1) + a%3 - -a + +b + half
}

// Bits uses every bitwise operator, binary and unary.
func Bits(a, b uint) uint {
	return a&b | a ^ b | a&^b | a<<1 | b>>1 | ^a
}

// Compare counts the comparisons of a and b that hold.
func Compare(a, b int) int {
	n := 0
	if a < b {
		n++
	}
	if a <= b {
		n++
	}
	if a > b {
		n++
	}
	if a >= b {
		n++
	}
	if a == b || a != b && b > 0 {
		n++
	}
	return n
}

// Loops sums j over a triangle, stopping at row stop or once the sum passes 100.
func Loops(n, stop int) int {
	total := 0
outer:
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if j == 2 {
				continue
			}
			if j > i {
				continue outer
			}
			if i == stop {
				break outer
			}
			total += j
		}
		if total > 100 {
			break
		}
	}
	for k := n; k > 0; k-- {
		total -= k
	}
	return total
}

// Classify names the size of x with a switch whose cases are conditions.
func Classify(x int) string {
	switch {
	case x < 0:
		return "negative"
	case x == 0:
		fallthrough
	case x <= 10:
		return "small"
	}
	return "large"
}

// Adder returns a closure that adds k.
func Adder(k int) func(int) int {
	return func(x int) int { return x + k }
}

// Deref takes an address (a unary &, which gremlins mutates) and uses the operators it
// leaves alone: !, <-, * and :=.
func Deref(ok bool, ch chan int) int {
	p := &Counter{n: 1}
	ch <- 1
	v := <-ch
	if !ok {
		v = *&v
	}
	return p.n + v + double(len(block{})) + weights[0]
}
