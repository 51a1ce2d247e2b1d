package psp

var ValidPixKey = validPixKey // the fuzz test reads the contract's rule for a chave from it
