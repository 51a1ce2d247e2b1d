package openapitest

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"mime"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"pixretry/psp"
	"pixretry/psp/control"
)

// unlisted maps each status that the double answers to a request outside the document to
// the component that describes it.
var unlisted = map[int]string{
	http.StatusNotFound:         "NotFound",
	http.StatusMethodNotAllowed: "MethodNotAllowed",
}

// netHTTP maps each status that net/http answers by itself, before the double sees the
// request, to the component that describes it. The double's own answers of these statuses
// are application/problem+json, and net/http's are text/plain or have no body.
var netHTTP = map[int]string{
	http.StatusBadRequest:                  "BadRequestOfNetHTTP",
	http.StatusExpectationFailed:           "ExpectationFailed",
	http.StatusRequestHeaderFieldsTooLarge: "HeaderTooLarge",
	http.StatusNotImplemented:              "NotImplemented",
	http.StatusHTTPVersionNotSupported:     "VersionNotSupported",
}

// document is the OpenAPI document, read and checked, with the schema of each header field and
// body of its responses compiled. It does not change once loaded, and is safe for concurrent use.
type document struct {
	spec    *openapi3.T
	schemas map[string]*jsonschema.Schema // by the JSON pointer of the schema in the document
}

// theDocument is the document GET control.OpenAPIPath serves, loaded once per test binary.
var theDocument = sync.OnceValue(func() *document { return mustLoad(serveDocument()) })

// serveDocument gets the document as a client would, from control.NewHandler.
func serveDocument() []byte {
	srv, _ := psp.NewServer(psp.DefaultConfig())       // a valid configuration
	h, _ := control.NewHandler(srv, control.Options{}) // valid options
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, control.OpenAPIPath, nil))
	return rec.Body.Bytes()
}

// mustLoad reads an OpenAPI 3.1 document in JSON, checks it with kin-openapi, checks its
// examples (checkExamples) and compiles the schema of each header field and body of its
// responses with the JSON Schema 2020-12 validator. A document it cannot load is a programming error, like a bad regexp for
// regexp.MustCompile: mustLoad panics with what is wrong.
func mustLoad(data []byte) *document {
	spec, err := openapi3.NewLoader().LoadFromData(data)
	must(err)
	must(spec.Validate(context.Background()))
	raw, err := jsonschema.UnmarshalJSON(bytes.NewReader(data)) // kin-openapi reads YAML too
	must(err)
	compiler := jsonschema.NewCompiler() // its default draft, 2020-12, is OpenAPI 3.1's
	must(compiler.AddResource(control.OpenAPIPath, raw))
	must(checkExamples(compiler, raw))
	d := &document{spec: spec, schemas: map[string]*jsonschema.Schema{}}
	for pointer, response := range d.responses() {
		for name, header := range response.Headers {
			d.compile(compiler, cmp.Or(header.Ref, pointer+"/headers/"+escape(name))+"/schema")
		}
		for name := range response.Content {
			d.compile(compiler, pointer+"/content/"+escape(name)+"/schema")
		}
	}
	return d
}

// must panics with err, if any, as a fault of the document.
func must(err error) {
	if err != nil {
		panic(fmt.Errorf("openapitest: the OpenAPI document: %w", err))
	}
}

// compile compiles the schema at pointer.
func (d *document) compile(compiler *jsonschema.Compiler, pointer string) {
	s, err := compiler.Compile(control.OpenAPIPath + pointer)
	must(err)
	d.schemas[pointer] = s
}

// responses is each response of the document by its pointer: those of the components, and
// those written in the operations.
func (d *document) responses() map[string]*openapi3.Response {
	responses := map[string]*openapi3.Response{}
	for name, ref := range d.spec.Components.Responses {
		responses["#/components/responses/"+name] = ref.Value // a name has no / nor ~
	}
	for path, item := range d.spec.Paths.Map() {
		for method, op := range item.Operations() {
			for key, ref := range op.Responses.Map() {
				responses[responsePointer(path, method, key, ref)] = ref.Value // a reference's is a component's
			}
		}
	}
	return responses
}

// responsePointer is where the response ref of key, in the operation of method at path, is in
// the document.
func responsePointer(path, method, key string, ref *openapi3.ResponseRef) string {
	return cmp.Or(ref.Ref, "#/paths/"+escape(path)+"/"+strings.ToLower(method)+"/responses/"+key)
}

// answer is an answer as its client reads it.
type answer struct {
	status int
	header http.Header
	body   []byte
	cut    bool // the body could not be read whole
}

// found is where the document describes an answer: its operation, as "METHOD /path", and the
// key of its response in that operation ("201", "4XX"), or the component that describes it.
type found struct{ operation, response string }

// check finds where the document describes r's answer a, and says what is wrong with a, if
// anything: a status the document does not give, a header missing or malformed, a Content-Type
// or a body that does not match.
func (d *document) check(r *http.Request, a answer) (found, error) {
	template, path := d.path(r.URL.Path)
	var op *openapi3.Operation
	at := found{r.Method + " (a path not listed)", strconv.Itoa(a.status)}
	if path != nil {
		op, at.operation = path.GetOperation(r.Method), r.Method+" "+template
	}
	if name, ok := netHTTP[a.status]; ok && !strings.HasPrefix(a.header.Get("Content-Type"), "application/") {
		at.response = name
		return at, d.checkComponent(r, name, a)
	}
	if op == nil {
		return d.checkUnlisted(r, path, at, a)
	}
	ref := op.Responses.Value(at.response)
	if ref == nil {
		at.response = at.response[:1] + "XX"
		ref = op.Responses.Value(at.response)
	}
	if ref == nil {
		at.response = strconv.Itoa(a.status)
		return at, fmt.Errorf("status %d is not documented", a.status)
	}
	return at, d.checkResponse(r, ref.Value, responsePointer(template, r.Method, at.response, ref), a)
}

// path is the path of the document that the request path p is, as the document writes it, and
// its item: p itself, or a template that fits p (see fits). It returns nil if the document lists
// none. A path the document lists as it is wins over a template that fits it, as OpenAPI's Paths
// Object says. No two templates of the document fit one path.
func (d *document) path(p string) (string, *openapi3.PathItem) {
	if item := d.spec.Paths.Value(p); item != nil {
		return p, item
	}
	for template, item := range d.spec.Paths.Map() {
		if fits(template, p) {
			return template, item
		}
	}
	return "", nil
}

// fits reports whether the request path p is one of template's paths: whether each segment of
// p is the template's segment, or one not empty where the template has a {name} segment. A
// segment that holds a template expression but is not one whole, such as {id}.json, is
// compared as it is written: the document has none.
func fits(template, p string) bool {
	want, got := strings.Split(template, "/"), strings.Split(p, "/")
	if len(want) != len(got) {
		return false
	}
	for i, segment := range want {
		wildcard := strings.HasPrefix(segment, "{") && strings.HasSuffix(segment, "}")
		if wildcard && got[i] == "" || !wildcard && got[i] != segment {
			return false
		}
	}
	return true
}

// checkUnlisted checks the answer a to r, a request for a path the document does not list
// (path is nil) or a method that path does not take, at at, against the component unlisted
// gives for its status. A 405 must allow the methods the path takes, in alphabetical order.
func (d *document) checkUnlisted(r *http.Request, path *openapi3.PathItem, at found, a answer) (found, error) {
	name, ok := unlisted[a.status]
	if !ok || path == nil && a.status == http.StatusMethodNotAllowed {
		return at, fmt.Errorf("status %d is not documented for a request outside the document", a.status)
	}
	at.response = name
	if a.status == http.StatusMethodNotAllowed {
		want := strings.Join(slices.Sorted(maps.Keys(path.Operations())), ", ")
		if got := a.header.Get("Allow"); got != want {
			return at, fmt.Errorf("header \"Allow\" is %q, want %q", got, want)
		}
	}
	return at, d.checkComponent(r, name, a)
}

// checkComponent checks a against the response component name.
func (d *document) checkComponent(r *http.Request, name string, a answer) error {
	return d.checkResponse(r, d.spec.Components.Responses[name].Value, "#/components/responses/"+name, a)
}

// checkResponse checks a against response, at pointer in the document: its header fields,
// its Content-Type and its body.
func (d *document) checkResponse(r *http.Request, response *openapi3.Response, pointer string, a answer) error {
	if err := d.checkHeaders(response.Headers, pointer, a); err != nil {
		return err
	}
	return d.checkBody(r, response.Content, pointer, a)
}

// checkHeaders checks a's header fields against headers, those of a's response at pointer:
// each required one is there, and each one there is one field that its schema takes.
func (d *document) checkHeaders(headers openapi3.Headers, pointer string, a answer) error {
	for _, name := range slices.Sorted(maps.Keys(headers)) {
		values := a.header.Values(name)
		switch header := headers[name]; {
		case len(values) == 0 && header.Value.Required:
			return fmt.Errorf("header %q missing", name)
		case len(values) > 1:
			return fmt.Errorf("header %q sent %d times", name, len(values))
		case len(values) == 1:
			schema := d.schemas[cmp.Or(header.Ref, pointer+"/headers/"+escape(name))+"/schema"]
			if err := schema.Validate(headerValue(values[0], header.Value.Schema.Value)); err != nil {
				return fmt.Errorf("header %q: %v", name, err)
			}
		}
	}
	return nil
}

// headerValue is the value of a header field of text as schema reads it: a number if schema
// is an integer's and text is one, else the text.
func headerValue(text string, schema *openapi3.Schema) any {
	if _, err := strconv.ParseInt(text, 10, 64); err == nil && schema.Type.Is(openapi3.TypeInteger) {
		return json.Number(text)
	}
	return text
}

// checkBody checks a's Content-Type and body against content, the media types of a's
// response at pointer. A response without content has no body. The body of an answer to HEAD,
// which net/http does not send, and of a cut answer is not checked.
func (d *document) checkBody(r *http.Request, content openapi3.Content, pointer string, a answer) error {
	if len(content) == 0 {
		if len(a.body) > 0 {
			return fmt.Errorf("a body the document does not describe: %.80q", a.body)
		}
		return nil
	}
	mediaType, _, _ := mime.ParseMediaType(a.header.Get("Content-Type"))
	if content[mediaType] == nil {
		return fmt.Errorf("the Content-Type %q is not documented", a.header.Get("Content-Type"))
	}
	if r.Method == http.MethodHead || a.cut {
		return nil
	}
	var body any = string(a.body)
	if strings.HasSuffix(mediaType, "json") {
		var err error
		if body, err = jsonschema.UnmarshalJSON(bytes.NewReader(a.body)); err != nil {
			return fmt.Errorf("the body is not JSON: %w", err)
		}
	}
	if err := d.schemas[pointer+"/content/"+escape(mediaType)+"/schema"].Validate(body); err != nil {
		return fmt.Errorf("the body: %v", err) // it names the schema
	}
	return nil
}

// escape writes name as a token of a JSON pointer (RFC 6901).
func escape(name string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(name)
}
