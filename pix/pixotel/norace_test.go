//go:build !race

package pixotel_test

const race = false
