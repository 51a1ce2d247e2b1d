package openapitest

import (
	"bufio"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
)

// anyOperation stands, in the coverage, for the operation of the components that answer
// requests of any operation, or outside the document.
const anyOperation = "*"

// components is the names of the components that answer requests of any operation, or outside
// the document.
func components() []string {
	return append(slices.Collect(maps.Values(unlisted)), slices.Collect(maps.Values(netHTTP))...)
}

// TestEveryDocumentedAnswerIsSeen reads the counts that the tests of psp, psp/control and
// cmd/psp saved in the folder OPENAPITEST_COUNTS names (make test runs them, then this test),
// and writes the table of what they checked and skipped. It fails for each response of the
// document that none of them produced, unless testdata/unseen.txt says why, and for each line
// of that file whose response one of them did produce.
func TestEveryDocumentedAnswerIsSeen(t *testing.T) {
	dir := os.Getenv(countsEnv)
	if dir == "" {
		t.Skip("OPENAPITEST_COUNTS names no folder of counts; make test makes one")
	}
	rows, err := loadCounts(dir)
	if err != nil || len(rows) == 0 {
		t.Fatalf("loadCounts(%s) = %d rows, %v; want the counts of a run", dir, len(rows), err)
	}
	writeTable(os.Stdout, rows)
	unseen := mustUnseen(t)
	seen := seenResponses(rows)
	for _, response := range documented() {
		switch _, explained := unseen[response]; {
		case !seen[response] && !explained:
			t.Errorf("%s: no test produces it, and testdata/unseen.txt does not say why", response)
		case seen[response] && explained:
			t.Errorf("%s: a test produces it, but testdata/unseen.txt says none does", response)
		}
		delete(unseen, response)
	}
	for _, response := range slices.Sorted(maps.Keys(unseen)) {
		t.Errorf("testdata/unseen.txt: %s is no response of the document", response)
	}
}

// documented is every response of the document, as "METHOD /path KEY", and each of the
// components as anyOperation and its name.
func documented() []string {
	d := theDocument()
	var responses []string
	for path, item := range d.spec.Paths.Map() {
		for method, op := range item.Operations() {
			for key := range op.Responses.Map() {
				responses = append(responses, method+" "+path+" "+key)
			}
		}
	}
	for _, name := range components() {
		responses = append(responses, anyOperation+" "+name)
	}
	slices.Sort(responses)
	return responses
}

// seenResponses is the responses that rows checked answers against.
func seenResponses(rows []row) map[string]bool {
	seen := map[string]bool{}
	for _, r := range rows {
		switch {
		case r.Skipped != "" || r.Response == "":
		case slices.Contains(components(), r.Response):
			seen[anyOperation+" "+r.Response] = true
		default:
			seen[r.Operation+" "+r.Response] = true
		}
	}
	return seen
}

// mustUnseen reads testdata/unseen.txt: one response per line, "METHOD /path KEY => why no
// test produces it". Blank lines and lines that start with # are left out.
func mustUnseen(t *testing.T) map[string]string {
	f, err := os.Open("testdata/unseen.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	unseen := map[string]string{}
	for sc := bufio.NewScanner(f); sc.Scan(); {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		response, why, ok := strings.Cut(line, " => ")
		if !ok || why == "" {
			t.Fatalf("testdata/unseen.txt: %q is not RESPONSE => why", line)
		}
		unseen[response] = why
	}
	return unseen
}
