package pix

import (
	"errors"
	"strings"
	"testing"
)

// A 201 whose body is not the expected JSON breaks the contract, and the error says so rather
// than naming the first member that JSON left empty.
func TestSettledNamesABodyThatIsNotTheExpectedJSON(t *testing.T) {
	p := Payment{AmountCents: 100, PixKey: "pix@example.com"}
	for _, body := range []string{"<html>Created</html>", `{"endToEndId":5}`, ""} {
		_, err := doubleAPI{}.Paid(Answer{Status: 201, Body: []byte(body)}, p)
		if !errors.Is(err, ErrContract) {
			t.Errorf("Paid(201 %q) error = %v, want ErrContract", body, err)
		}
		if want := "the 201 body is not the expected JSON"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Paid(201 %q) error = %v, want it to say %q", body, err, want)
		}
	}
}
