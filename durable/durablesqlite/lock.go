//go:build unix

package durablesqlite

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// ErrBusy reports a SQLite database that another process is working (see the package doc).
var ErrBusy = errors.New("durablesqlite: another process is working this database")

// fileLock is an exclusive flock(2) on a file. The kernel drops it when its process dies,
// which is what makes it proof that a holder is alive.
type fileLock struct{ f *os.File }

// lockFile locks path, creating it if needed. With wait it waits for the lock, and without it
// fails at once with ErrBusy.
func lockFile(path string, wait bool) (*fileLock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("durablesqlite: lock file: %w", err)
	}
	how := syscall.LOCK_EX
	if !wait {
		how |= syscall.LOCK_NB
	}
	if err := syscall.Flock(int(f.Fd()), how); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w (%s)", ErrBusy, path)
		}
		return nil, fmt.Errorf("durablesqlite: lock %s: %w", path, err)
	}
	return &fileLock{f: f}, nil
}

// unlock releases the lock.
func (l *fileLock) unlock() error { return l.f.Close() }
