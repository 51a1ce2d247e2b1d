package fixture

import "testing"

// TestFixture runs every line, so that gremlins finds the mutants in function bodies covered.
func TestFixture(t *testing.T) {
	ch := make(chan int, 1)
	cases := []struct {
		name      string
		got, want any
	}{
		{"Sum(1, 2, 3)", Sum(1, 2, 3), 6},
		{"Sum[int64](4)", Sum[int64](4), int64(4)},
		{"Counter.Apply(5)", new(Counter).Apply(5), 2},
		{"Arith(5, 3)", Arith(5, 3), 22},
		{"Bits(6, 3)", Bits(6, 3), ^uint(2)},
		{"Compare(1, 2)", Compare(1, 2), 3},
		{"Compare(3, 2)", Compare(3, 2), 3},
		{"Loops(6, 4)", Loops(6, 4), -15},
		{"Loops(50, -1)", Loops(50, -1), 19454},
		{"Classify(-1)", Classify(-1), "negative"},
		{"Classify(0)", Classify(0), "small"},
		{"Classify(20)", Classify(20), "large"},
		{"Adder(2)(3)", Adder(2)(3), 5},
		{"Deref(false, ch)", Deref(false, ch), 16},
		{"Countdown(3)", Countdown(3), 3},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}
