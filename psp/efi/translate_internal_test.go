package efi

import (
	"net/http"
	"testing"

	"pixretry/psp"
)

func TestEfiTimeWritesMillisecondsInUTC(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"2024-05-06T07:08:09.123456789-03:00", "2024-05-06T10:08:09.123Z"},
		{"2024-05-06T07:08:09Z", "2024-05-06T07:08:09.000Z"},
		{"yesterday", "yesterday"},
	} {
		if got := efiTime(tc.in); got != tc.want {
			t.Errorf("efiTime(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestRefusalOfAnUnknownCodeIsErroAplicacao checks the answer to a code the front end does not
// know, which the core does not send today.
func TestRefusalOfAnUnknownCodeIsErroAplicacao(t *testing.T) {
	got := refusal(http.StatusTeapot, psp.Problem{Code: "teapot"})
	want := `{"nome":"erro_aplicacao","mensagem":"the PSP answered teapot"}` + "\n"
	if got.status != http.StatusInternalServerError || string(got.body) != want {
		t.Errorf("refusal() = %d %s, want 500 %s", got.status, got.body, want)
	}
}
