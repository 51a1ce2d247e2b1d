package psp

import "testing"

// The wire strings of the HTTP contract (psp/control/openapi.json), word for word: a constant
// renamed here breaks clients.
func TestWireStringsAreTheContract(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{codeUnauthorized, "unauthorized"},
		{codeIdempotencyKeyMissing, "idempotency_key_missing"},
		{codeIdempotencyKeyInvalid, "idempotency_key_invalid"},
		{codeUnsupportedMediaType, "unsupported_media_type"},
		{codePayloadTooLarge, "payload_too_large"},
		{codeInvalidRequest, "invalid_request"},
		{codeInsufficientFunds, "insufficient_funds"},
		{codeIdempotencyKeyInUse, "idempotency_key_in_use"},
		{codeIdempotencyKeyReused, "idempotency_key_reused"},
		{codeNotFound, "not_found"},
		{codeMethodNotAllowed, "method_not_allowed"},
		{codeInjectedFault, "injected_fault"},
		{codeOverloaded, "overloaded"},
		{codeKeyStoreFull, "key_store_full"},
		{codeIdempotencyKeyClosed, "idempotency_key_closed"},
		{codePaymentNotFound, "payment_not_found"},
		{codeOutcomeUnprovable, "outcome_unprovable"},
		{LookupParam, "idempotency_key"},
		{replayedHeader, "Idempotent-Replayed"},
		{problemTypePrefix, "urn:pixretry:psp:problem:"},
		{targetPayment, ""},
		{targetLookup, "lookup"},
		{kindStatus, "status"},
		{kindSlow, "slow"},
		{kindLate, "late"},
		{kindDrop, "drop"},
		{kindReset, "reset"},
		{kindDown, "down"},
		{kindRedirect, "redirect"},
		{kindDuplicate, "duplicate"},
		{kindCommitStatus, "commit_status"},
		{kindBadBody, "bad_body"},
		{breachNotJSON, "not_json"},
		{breachShort, "short"},
		{breachCut, "cut"},
		{breachMissing, "missing"},
		{breachAmount, "valor"},
		{breachPixKey, "chave"},
		{breachEndToEndID, "end_to_end_id"},
	} {
		if tc.got != tc.want {
			t.Errorf("wire string = %q, want %q", tc.got, tc.want)
		}
	}
}
