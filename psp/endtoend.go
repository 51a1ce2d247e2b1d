package psp

import (
	"context"
	"fmt"
	"regexp"
)

// WithEndToEndID returns a copy of ctx that carries id, the endToEndId that a front end's
// client made for its payment, as the payment initiator of Open Finance payments v4 makes it.
// A front end relays the payment to the Server's own API (see Relay) in that context. If the
// Server accepts the payment, id is its endToEndId, instead of one the Server makes: its
// answers, its settlement in the ledger and Config.OnEnd carry it. A request under a key the
// Server already holds keeps the endToEndId of the key's payment, whatever id it carries. Only
// a payment request reads the context. No header or member of the API sets it: only a handler
// in the same process can.
//
// id must match the pattern of payments v4 (schema EndToEndIdWithoutRestriction): E, an 8-digit
// ISPB, a minute in UTC as yyyyMMddHHmm and 11 letters or digits. Every endToEndId the Server
// makes matches it. The Server does not check that id is unique: the client must make it so.
// Another id is a bug of the front end, which must refuse its client's first: WithEndToEndID
// panics.
func WithEndToEndID(ctx context.Context, id string) context.Context {
	if !endToEndPattern.MatchString(id) {
		panic(fmt.Sprintf("psp: WithEndToEndID: %q is not E, an 8-digit ISPB, yyyyMMddHHmm and 11 letters or digits", id))
	}
	return context.WithValue(ctx, endToEndKey{}, id)
}

// endToEndPattern is payments v4's EndToEndIdWithoutRestriction.
var endToEndPattern = regexp.MustCompile(
	`^E[0-9]{8}[0-9]{4}(0[1-9]|1[0-2])(0[1-9]|[1-2][0-9]|3[0-1])(2[0-3]|[01][0-9])[0-5][0-9][a-zA-Z0-9]{11}$`)

// endToEndKey is the key of the endToEndId a context carries.
type endToEndKey struct{}

// givenEndToEndID is the endToEndId that WithEndToEndID put in ctx, or "" if none.
func givenEndToEndID(ctx context.Context) string {
	id, _ := ctx.Value(endToEndKey{}).(string)
	return id
}
