package openapitest

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
)

// countsEnv names the environment variable that Main reads: a folder for the counts.
const countsEnv = "OPENAPITEST_COUNTS"

// row is what a test binary did with the answers of one status to one operation: checked them
// against response, or skipped them for the reason skipped.
type row struct {
	Operation string // "POST /v1/pix/payments", or "PUT (a path not listed)"
	Response  string `json:",omitempty"` // the key of a response of the operation ("201", "4XX"), or a component
	Status    int
	Skipped   string `json:",omitempty"`
	Answers   int
}

// counts are this test binary's rows, keyed by all but Answers.
var counts = struct {
	sync.Mutex
	rows map[row]int
}{rows: map[row]int{}}

// count counts an answer of status, checked at at or skipped for the reason skip.
func count(at found, status int, skip string) {
	counts.Lock()
	defer counts.Unlock()
	counts.rows[row{Operation: at.operation, Response: at.response, Status: status, Skipped: skip}]++
}

// counted returns this test binary's rows, sorted.
func counted() []row {
	counts.Lock()
	defer counts.Unlock()
	return rowsOf(counts.rows)
}

// rowsOf is the rows of sums, sorted by operation, checked before skipped, then status.
func rowsOf(sums map[row]int) []row {
	rows := make([]row, 0, len(sums))
	for r, n := range sums {
		r.Answers = n
		rows = append(rows, r)
	}
	slices.SortFunc(rows, func(a, b row) int {
		return cmp.Or(cmp.Compare(a.Operation, b.Operation), cmp.Compare(a.Skipped, b.Skipped),
			cmp.Compare(a.Status, b.Status), cmp.Compare(a.Response, b.Response))
	})
	return rows
}

// Main returns m, which runs a test binary's tests, with its counts saved: once the tests have
// run, if the environment variable OPENAPITEST_COUNTS names a folder, it writes there, in a folder
// of its own, how many answers the binary checked per operation and status, and skipped per
// reason. Call it from TestMain, as in goleak.VerifyTestMain(openapitest.Main(m)).
func Main(m interface{ Run() int }) interface{ Run() int } { return saved{m} }

type saved struct{ m interface{ Run() int } }

func (s saved) Run() int {
	code := s.m.Run()
	if dir := os.Getenv(countsEnv); dir != "" {
		if err := save(dir, counted()); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return cmp.Or(code, 1)
		}
	}
	return code
}

// save writes rows as JSON to a new folder of dir, in the file counts.json.
func save(dir string, rows []row) error {
	data, _ := json.Marshal(rows) // plain strings and numbers
	own, err := os.MkdirTemp(dir, "counts-")
	if err == nil {
		err = os.WriteFile(filepath.Join(own, "counts.json"), data, 0o644)
	}
	if err != nil {
		return fmt.Errorf("openapitest: saving the counts: %w", err)
	}
	return nil
}

// loadCounts reads the rows that Main saved in dir and sums them.
func loadCounts(dir string) ([]row, error) {
	files, err := filepath.Glob(filepath.Join(dir, "counts-*", "counts.json"))
	sums := map[row]int{}
	for _, file := range files {
		var rows []row
		data, err := os.ReadFile(file)
		if err == nil {
			err = json.Unmarshal(data, &rows)
		}
		if err != nil {
			return nil, fmt.Errorf("openapitest: reading the counts: %w", err)
		}
		for _, r := range rows {
			n := r.Answers
			r.Answers = 0
			sums[r] += n
		}
	}
	return rowsOf(sums), err
}

// writeTable writes rows as a Markdown table.
func writeTable(w io.Writer, rows []row) {
	fmt.Fprintln(w, "| operation | response | status | answers | skipped because |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	for _, r := range rows {
		fmt.Fprintf(w, "| %s | %s | %d | %d | %s |\n", r.Operation, r.Response, r.Status, r.Answers, r.Skipped)
	}
}
