package openapitest

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestMainSavesTheCounts: Main runs the tests and returns their code. Then it saves the
// binary's counts, in a folder of its own in the folder OPENAPITEST_COUNTS names, and
// loadCounts sums them.
func TestMainSavesTheCounts(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(countsEnv, dir)
	mine := row{Operation: "GET /saved", Response: "200", Status: 200}
	count(found{mine.Operation, mine.Response}, mine.Status, "")
	first := countOf(mine)
	for _, code := range []int{0, 3} {
		if got := Main(tests(func() int { return code })).Run(); got != code {
			t.Errorf("Run() = %d, want the tests' %d", got, code)
		}
		count(found{mine.Operation, mine.Response}, mine.Status, "") // one more for the next file
	}
	rows, err := loadCounts(dir)
	mine.Answers = 2*first + 1
	if err != nil || !slices.Contains(rows, mine) {
		t.Errorf("loadCounts() = %v, %v; want %v among the rows", rows, err, mine)
	}
}

// TestMainSavesNothingWithoutAFolder: without OPENAPITEST_COUNTS, Main writes no file.
func TestMainSavesNothingWithoutAFolder(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	t.Setenv(countsEnv, "")
	if got := Main(tests(func() int { return 0 })).Run(); got != 0 {
		t.Errorf("Run() = %d, want 0", got)
	}
	if files, err := os.ReadDir(tmp); len(files) > 0 || err != nil {
		t.Errorf("the temporary folder holds %v, %v; want nothing", files, err)
	}
}

// TestMainSaysWhyItCannotSave: a folder that cannot take the counts fails the binary, and
// stderr says why.
func TestMainSaysWhyItCannotSave(t *testing.T) {
	t.Chdir(t.TempDir()) // where a mutant that ignores the error writes
	missing := filepath.Join(t.TempDir(), "missing")
	t.Setenv(countsEnv, missing)
	code := 0
	stderr := captureStderr(t, func() { code = Main(tests(func() int { return 0 })).Run() })
	if want := "openapitest: saving the counts: stat " + missing + ": no such file or directory"; code != 1 || !strings.HasPrefix(stderr, want) {
		t.Errorf("Run() = %d, stderr %q; want 1 and %q", code, stderr, want)
	}
}

// captureStderr runs f and returns what it wrote to os.Stderr.
func captureStderr(t *testing.T, f func()) string {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := os.Stderr
	os.Stderr = w
	f()
	os.Stderr = stderr
	w.Close()
	out, _ := io.ReadAll(r)
	r.Close()
	return string(out)
}

// TestLoadCountsSaysWhatItCannotRead: a file of counts that cannot be read, or is not JSON,
// is an error.
func TestLoadCountsSaysWhatItCannotRead(t *testing.T) {
	unreadable := t.TempDir()
	if err := os.MkdirAll(filepath.Join(unreadable, "counts-1", "counts.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	notJSON := t.TempDir()
	if err := os.Mkdir(filepath.Join(notJSON, "counts-1"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(notJSON, "counts-1", "counts.json"), []byte("[{"), 0o644); err != nil {
		t.Fatal(err)
	}
	for dir, want := range map[string]string{unreadable: "is a directory", notJSON: "unexpected end of JSON input"} {
		rows, err := loadCounts(dir)
		if err == nil || !strings.HasPrefix(err.Error(), "openapitest: reading the counts: ") ||
			!strings.Contains(err.Error(), want) || rows != nil {
			t.Errorf("loadCounts() = %v, %v; want no rows and an error with %q", rows, err, want)
		}
	}
}

func TestWriteTable(t *testing.T) {
	var out strings.Builder
	writeTable(&out, []row{
		{Operation: "POST /v1/pix/payments", Response: "201", Status: 201, Answers: 3},
		{Operation: "POST /v1/pix/payments", Status: 201, Skipped: "fault bad_body", Answers: 1},
	})
	want := "| operation | response | status | answers | skipped because |\n" +
		"|---|---|---|---|---|\n" +
		"| POST /v1/pix/payments | 201 | 201 | 3 |  |\n" +
		"| POST /v1/pix/payments |  | 201 | 1 | fault bad_body |\n"
	if got := out.String(); got != want {
		t.Errorf("writeTable() wrote\n%s\nwant\n%s", got, want)
	}
}
