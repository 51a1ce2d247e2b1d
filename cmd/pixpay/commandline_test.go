package main

// The command line as a newcomer meets it: help anywhere, a hint for an option on the wrong
// side of the command, a -psp that is not a URL, and a list that never makes a database.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestHelpAnyWhereExits0WithTheUsage(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "pay.db")
	for _, args := range [][]string{
		{"help"},
		{"-h"},
		{"-help"},
		{"-db", db, "help"},
		{"list", "-h"},
		{"-db", db, "run", "-h"},
		{"-db", db, "add", "-id", "x", "-h"},
		{"-db", db, "list", "help"},
	} {
		out, stderr, code := pixpay(t, args...)
		if code != 0 || out != "" || !strings.Contains(stderr, "usage:") || !strings.Contains(stderr, "options of add, after it:") {
			t.Errorf("pixpay %v: exit %d, stdout %q, stderr %q; want 0 and the whole usage on stderr", args, code, out, stderr)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("help left %d files in the database's folder, want none", len(entries))
	}
}

// An option given on the wrong side of the command is a bad command line with a hint that
// says where it goes.
func TestMisplacedOptionGetsAHint(t *testing.T) {
	db := filepath.Join(t.TempDir(), "pay.db")
	for _, tt := range []struct {
		args []string
		hint string
	}{
		{[]string{"-db", db, "run", "-psp", "http://127.0.0.1:1"},
			"hint: -psp is an option of pixpay, not of a command: put it before the command, as in pixpay -db DSN -psp ... run\n"},
		{[]string{"-db", db, "list", "--token=x"},
			"hint: -token is an option of pixpay, not of a command: put it before the command"},
		{[]string{"-db", db, "-until-done", "run"},
			"hint: -until-done is an option of run: put it after the command, as in pixpay -db DSN run -until-done\n"},
		{[]string{"-db", db, "-valor", "1.00", "add"}, "hint: -valor is an option of add: put it after the command"},
	} {
		_, stderr, code := pixpay(t, tt.args...)
		if code != 2 || !strings.Contains(stderr, "usage:") || !strings.Contains(stderr, tt.hint) {
			t.Errorf("pixpay %v: exit %d, stderr %q; want 2, the usage and %q", tt.args, code, stderr, tt.hint)
		}
	}
	_, stderr, _ := pixpay(t, "-db", db, "list", "-bogus")
	if strings.Contains(stderr, "hint:") {
		t.Errorf("an option of no one got a hint: %q", stderr)
	}
}

// A bad command line names the option and what it wants, in the options' words: no Go field.
func TestBadOptionSaysWhatItWants(t *testing.T) {
	db := filepath.Join(t.TempDir(), "pay.db")
	for _, tt := range []struct {
		args []string
		says string
	}{
		{[]string{"-db", db, "-psp", "127.0.0.1:38597", "run"},
			`pixpay: -psp "127.0.0.1:38597": want an http or https URL, such as http://127.0.0.1:8080`},
		{[]string{"-db", db, "-psp", "ftp://psp", "run"}, `pixpay: -psp "ftp://psp": want an http or https URL`},
		{[]string{"-db", db, "-psp", "http://", "run"}, `pixpay: -psp "http://": want an http or https URL`},
		{[]string{"list"}, "pixpay: -db is required: a SQLite file path or a postgres:// URL"},
		{[]string{"-db", db}, "pixpay: a command is required: add, run or list"},
		{[]string{"-db", db, "pay"}, `pixpay: command "pay": want add, run, list or help`},
		{[]string{"-db", db, "run"}, "pixpay run: -psp is required"},
		{[]string{"-db", db, "-delay-base", "1m", "-delay-max", "30s", "list"}, "pixpay: an option is out of range: -delay-max 30s is below -delay-base 1m0s"},
		{[]string{"-db", db, "-rescue-after", "9s", "list"}, "pixpay: an option is out of range: -rescue-after 9s is below the job timeout 10s"},
		{[]string{"-db", db, "-psp-outage-max", "-1s", "list"}, "-psp-outage-max are not negative"},
	} {
		_, stderr, code := pixpay(t, tt.args...)
		if code != 2 || !strings.Contains(stderr, tt.says) {
			t.Errorf("pixpay %v: exit %d, stderr %q; want 2 and %q", tt.args, code, stderr, tt.says)
		}
		for _, goName := range []string{"DelayBase", "DelayMax", "RescueAfter", "JobTimeout", "OutageMax", "invalid config", "BaseURL"} {
			if strings.Contains(stderr, goName) {
				t.Errorf("pixpay %v: stderr %q names %s, a Go name", tt.args, stderr, goName)
			}
		}
	}
}

// list on a SQLite file that does not exist says so and creates nothing: no database, no
// lock file.
func TestListNeverCreatesADatabase(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "typo.db")
	out, stderr, code := pixpay(t, "-db", db, "list")
	want := "pixpay list: no database at " + db + ": pixpay add creates one with the first intent\n"
	if code != 1 || out != "" || stderr != want {
		t.Errorf("list on a missing file: exit %d, stdout %q, stderr %q; want 1 and %q", code, out, stderr, want)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("list on a missing file left %d files behind, want none", len(entries))
	}
}
