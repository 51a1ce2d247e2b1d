package openfinance

import (
	"net/http"
	"regexp"
	"slices"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// checker reads the data claim of a request against the spec's schema and keeps the first
// member found wrong, in the order the reads come: missing (PARAMETRO_NAO_INFORMADO) or
// malformed (PARAMETRO_INVALIDO), a 422 naming the member by its path, as in
// data.payment.amount (the spec's description, items 1.3.1 and 2.2.1). Once it has one, its
// reads read nothing.
type checker struct{ bad *apiError }

func (c *checker) missing(path string) {
	if c.bad == nil {
		c.bad = errorf(http.StatusUnprocessableEntity, codeNotInformed, "%s is required", path)
	}
}

func (c *checker) invalid(path, why string) {
	if c.bad == nil {
		c.bad = errorf(http.StatusUnprocessableEntity, codeInvalidParameter, "%s %s", path, why)
	}
}

// object is a JSON object of the data claim at path, its members undecoded.
type object struct {
	c       *checker
	path    string
	members map[string]jsontext.Value
}

// root reads raw, the member at path, as an object; required says whether it may be absent.
func (c *checker) root(raw jsontext.Value, path string, required bool) object {
	o := object{c: c, path: path}
	switch {
	case c.bad != nil:
	case raw == nil && required:
		c.missing(path)
	case raw != nil && (raw.Kind() != '{' || json.Unmarshal(raw, &o.members) != nil):
		c.invalid(path, "must be a JSON object")
	}
	return o
}

// object reads the member name as an object.
func (o object) object(name string, required bool) object {
	return o.c.root(o.members[name], o.path+"."+name, required)
}

// text reads the member name as a string matching pattern.
func (o object) text(name string, pattern *regexp.Regexp, required bool) string {
	raw, path := o.members[name], o.path+"."+name
	var s string
	switch {
	case o.c.bad != nil:
	case raw == nil && required:
		o.c.missing(path)
	case raw == nil:
	case raw.Kind() != '"':
		o.c.invalid(path, "must be a JSON string")
	case json.Unmarshal(raw, &s) == nil && !pattern.MatchString(s):
		o.c.invalid(path, "must match "+pattern.String())
	}
	return s
}

// oneOf reads the member name as one of values.
func (o object) oneOf(name string, required bool, values ...string) string {
	s := o.text(name, anyText, required)
	if s != "" && !slices.Contains(values, s) {
		o.c.invalid(o.path+"."+name, "must be one of "+quoteAll(values))
	}
	return s
}

// has reports whether the object has the member name.
func (o object) has(name string) bool { return o.members[name] != nil }

// raw is the member name as sent, or nil.
func (o object) raw(name string) jsontext.Value { return o.members[name] }

// quoteAll is values quoted and joined with commas.
func quoteAll(values []string) string {
	b, _ := json.Marshal(values)
	return string(b[1 : len(b)-1])
}

// The patterns of the spec's members that the double reads.
var (
	anyText           = regexp.MustCompile(`(?s)^.*$`)
	amountPattern     = regexp.MustCompile(`^\d{1,16}\.\d{2}$`)
	currencyPattern   = regexp.MustCompile(`^[A-Z]{3}$`)
	ispbPattern       = regexp.MustCompile(`^\d{8}$`)
	issuerPattern     = regexp.MustCompile(`^\d{1,4}$`)
	numberPattern     = regexp.MustCompile(`^\d{1,20}$`)
	cpfPattern        = regexp.MustCompile(`^\d{11}$`)
	cpfCnpjPattern    = regexp.MustCompile(`^(\d{11}|\d{14})$`)
	cnpjPattern       = regexp.MustCompile(`^\d{14}$`)
	relPattern        = regexp.MustCompile(`^[A-Z]{3}$`)
	namePattern       = regexp.MustCompile(`(?s)^.{1,120}$`)
	datePattern       = regexp.MustCompile(`^(\d{4})-(1[0-2]|0?[1-9])-(3[01]|[12][0-9]|0?[1-9])$`)
	proxyPattern      = regexp.MustCompile(`(?s)^.{1,77}$`)
	remittancePattern = regexp.MustCompile(`(?s)^.{0,140}$`)
	txidPattern       = regexp.MustCompile(`^[a-zA-Z0-9]{1,35}$`)
	townPattern       = regexp.MustCompile(`^\d{7}$`)
	consentIDPattern  = regexp.MustCompile(`^urn:[a-zA-Z0-9][a-zA-Z0-9\-]{0,31}:[a-zA-Z0-9()+,\-.:=@;$_!*'%/?#]+$`)
	endToEndPattern   = regexp.MustCompile(`^E[0-9]{8}[0-9]{4}(0[1-9]|1[0-2])(0[1-9]|[1-2][0-9]|3[0-1])(2[0-3]|[01][0-9])[0-5][0-9][a-zA-Z0-9]{11}$`)
)

// account is the spec's CreditorAccount: the creditor's account, as a consent and its payment
// name it.
type account struct {
	ISPB        string `json:"ispb"`
	Issuer      string `json:"issuer,omitempty"`
	Number      string `json:"number"`
	AccountType string `json:"accountType"`
}

// account reads the member name as an account.
func (o object) account(name string) account {
	a := o.object(name, true)
	return account{ISPB: a.text("ispb", ispbPattern, true), Issuer: a.text("issuer", issuerPattern, false),
		Number: a.text("number", numberPattern, true), AccountType: a.oneOf("accountType", true, "CACC", "SVGS", "TRAN")}
}
