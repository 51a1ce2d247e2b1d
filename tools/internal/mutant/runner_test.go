package mutant

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// TestMain runs the tests outside the repository's go.work: their fixtures are modules of
// their own under testdata, which no workspace lists.
func TestMain(m *testing.M) {
	os.Setenv("GOWORK", "off")
	goleak.VerifyTestMain(m)
}

const fixture = "../../mutationgate/testdata/mod/sign"

func mustSource(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile(fixture + "/sign.go")
	if err != nil {
		t.Fatal(err)
	}
	return string(src)
}

func TestMeasureSetsTheTimeoutFromTheTestsTime(t *testing.T) {
	r := &Runner{Dir: fixture}
	took, err := r.Measure(context.Background())
	if err != nil {
		t.Fatalf("Measure() error = %v", err)
	}
	if want := max(Coefficient*took, TimeoutFloor); r.Timeout != want {
		t.Errorf("Timeout = %v, want %v (the tests took %v)", r.Timeout, want, took)
	}
}

func TestMeasureFailsWhenTheTestsFail(t *testing.T) {
	r := &Runner{Dir: "../../mutationgate/testdata/mod/none"}
	if _, err := r.Measure(context.Background()); err == nil {
		t.Error("Measure() of a directory without a package = nil error, want one")
	}
}

func TestTestGivesEachVerdict(t *testing.T) {
	src := mustSource(t)
	cases := []struct {
		name   string
		mutant string
		want   Verdict
	}{
		{"unchanged", src, Survived},
		{"wrong answer", strings.Replace(src, "return 1", "return 2", 1), Killed},
		{"hangs", strings.Replace(src, "switch {", "for {\n\t}\n\tswitch {", 1), TimedOut},
		{"does not compile", strings.Replace(src, "return 0", "return zero", 1), NotCompiled},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := &Runner{Dir: fixture, Timeout: 2 * time.Second}
			got, out, err := r.Test(context.Background(), "sign.go", []byte(c.mutant))
			if err != nil {
				t.Fatalf("Test() error = %v", err)
			}
			if got != c.want {
				t.Errorf("Test() = %v, want %v; output:\n%s", got, c.want, out)
			}
		})
	}
	if got := mustSource(t); got != src {
		t.Errorf("the fixture's file changed on disk:\n%s", got)
	}
}

func TestTestRefusesToRunWithoutATimeout(t *testing.T) {
	r := &Runner{Dir: fixture}
	if _, _, err := r.Test(context.Background(), "sign.go", []byte(mustSource(t))); err == nil {
		t.Error("Test() without Measure = nil error, want one")
	}
}

func TestTestFileReplacesAFileOfAnotherPackage(t *testing.T) {
	src := mustSource(t)
	cases := []struct {
		name, run, mutant string
		want              Verdict
	}{
		{"unchanged", "", src, Survived},
		{"wrong sign", "", strings.Replace(src, "return -1", "return 1", 1), Killed},
		{"wrong sign, a test that cannot see it", "^TestAbsOfZero$", strings.Replace(src, "return -1", "return 1", 1),
			Survived},
		{"wrong sign, the test that sees it", "^TestAbs$", strings.Replace(src, "return -1", "return 1", 1), Killed},
		{"does not compile", "", strings.Replace(src, "return 0", "return zero", 1), NotCompiled},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := &Runner{Dir: "../../mutationgate/testdata/mod/abs", Timeout: 10 * time.Second, Run: c.run}
			got, out, err := r.TestFile(context.Background(), fixture+"/sign.go", []byte(c.mutant))
			if err != nil {
				t.Fatalf("TestFile() error = %v", err)
			}
			if got != c.want {
				t.Errorf("TestFile() = %v, want %v; output:\n%s", got, c.want, out)
			}
		})
	}
	if got := mustSource(t); got != src {
		t.Errorf("the fixture's file changed on disk:\n%s", got)
	}
}
