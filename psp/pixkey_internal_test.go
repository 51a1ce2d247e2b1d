package psp

import (
	"strings"
	"testing"
)

func TestValidPixKey(t *testing.T) {
	email77 := strings.Repeat("a", 65) + "@example.com"
	tests := []struct {
		key  string
		want bool
	}{
		{"12345678901", true},                           // CPF
		{"1234567890", false},                           // 10 digits
		{"123456789012", false},                         // 12 digits
		{"12345678000195", true},                        // CNPJ
		{"1234567800019", false},                        // 13 digits
		{"123456780001950", false},                      // 15 digits
		{"+5511987654321", true},                        // phone
		{"+12", true},                                   // shortest phone
		{"+123456789012345", true},                      // 15 digits
		{"+1234567890123456", false},                    // 16 digits
		{"+1", false},                                   // 1 digit
		{"+0511987654321", false},                       // leading 0
		{"5511987654321", false},                        // no +
		{"pix@example.com", true},                       // e-mail
		{"first.last+tag@sub.example.com.br", true},     // e-mail with dots and plus
		{"a@b", true},                                   // a host without dots
		{email77, true},                                 // 77 characters
		{"a" + email77, false},                          // 78 characters
		{"Pix@example.com", false},                      // upper case
		{"pix@Example.com", false},                      // upper case domain
		{"pix@", false},                                 // no domain
		{"@example.com", false},                         // no local part
		{"pix@-example.com", false},                     // label starts with -
		{"pix@example..com", false},                     // empty label
		{"pix@example.com-", false},                     // label ends with -
		{"pix example@example.com", false},              // space
		{"123e4567-e89b-12d3-a456-426614174000", true},  // EVP
		{"123E4567-E89B-12D3-A456-426614174000", false}, // upper case
		{"123e4567e89b12d3a456426614174000", false},     // no hyphens
		{"123e4567-e89b-12d3-a456-42661417400", false},  // short
		{"{123e4567-e89b-12d3-a456-426614174000}", false},
		{"", false},
		{"١٢٣٤٥٦٧٨٩٠١", false}, // non-ASCII digits
	}
	for _, tt := range tests {
		if got := validPixKey(tt.key); got != tt.want {
			t.Errorf("validPixKey(%q) = %v, want %v", tt.key, got, tt.want)
		}
	}
}
