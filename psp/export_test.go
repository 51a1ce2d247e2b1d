package psp

// The unexported names that the external tests (package psp_test) use. They exist only in the
// test build: they are not part of the API.
const (
	CodeUnauthorized          = codeUnauthorized
	CodeIdempotencyKeyMissing = codeIdempotencyKeyMissing
	CodeIdempotencyKeyInvalid = codeIdempotencyKeyInvalid
	CodeUnsupportedMediaType  = codeUnsupportedMediaType
	CodePayloadTooLarge       = codePayloadTooLarge
	CodeInvalidRequest        = codeInvalidRequest
	CodeInsufficientFunds     = codeInsufficientFunds
	CodeIdempotencyKeyInUse   = codeIdempotencyKeyInUse
	CodeIdempotencyKeyReused  = codeIdempotencyKeyReused
	CodeNotFound              = codeNotFound
	CodeMethodNotAllowed      = codeMethodNotAllowed
	CodeInjectedFault         = codeInjectedFault
	CodeInternal              = codeInternal
	CodeOverloaded            = codeOverloaded
	CodeHostNotAllowed        = codeHostNotAllowed
	ControlFaultsPath         = controlFaultsPath
	ControlSettlementsPath    = controlSettlementsPath
	ControlBalancePath        = controlBalancePath
	ControlResetPath          = controlResetPath
	ControlStatsPath          = controlStatsPath
	DefaultBalanceCents       = defaultBalanceCents
	DefaultKeyTTL             = defaultKeyTTL
	DefaultISPB               = defaultISPB
	IdempotencyKeyHeader      = idempotencyKeyHeader
	ReplayedHeader            = replayedHeader
	MaxBodyBytes              = maxBodyBytes
	MaxEmailKeyLen            = maxEmailKeyLen
	MaxInfoPagadorLen         = maxInfoPagadorLen
)

type (
	Problem   = problem
	Violation = violation
)

var (
	ParseAmount      = parseAmount
	ErrInvalidAmount = errInvalidAmount
)

const (
	CodeKeyStoreFull = codeKeyStoreFull
	MaxEvictions     = maxEvictions
	DefaultMaxKeys   = defaultMaxKeys
)
