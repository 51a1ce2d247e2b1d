package openfinance

// NewKeyOf is newKey, for the tests of the bits a key takes from its time and its randomness.
var NewKeyOf = newKey
