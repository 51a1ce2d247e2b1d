package properties

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if a test leaves a goroutine behind: every run closes its pipes
// and waits for the PSP's handlers, so none should outlive its bubble.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
