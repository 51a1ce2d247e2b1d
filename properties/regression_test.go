package properties

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// failFileVersion is the format version rapid v1.3.0 writes on the first data line of a fail
// file ("v0.4.8#<seed>"). rapid.Check skips, with a log line only, a file of another version
// or one its generators can no longer read; this suite's replay fails instead.
const failFileVersion = "v0.4.8"

// propertiesByTest are the rapid properties of this package, by test name, for replaying
// fail files.
var propertiesByTest = map[string]func(*rapid.T){
	"TestOnePaymentKeepsInvariants":         checkScenarios(onePaymentScenarios(), new(coverage)),
	"TestInterleavedPaymentsKeepInvariants": checkScenarios(interleavedScenarios(), new(coverage)),
	"TestSameKeySendersKeepInvariants":      checkScenarios(sameInstantScenarios(), new(coverage)),
	"TestSameKeyBurstSettlesOnce":           sameKeyBurstSettlesOnce,
	"TestPSPMatchesModel":                   pspMatchesModel,
	"TestGatewayAnswersKeepInvariants":      checkScenarios(gatewayScenarios(), new(coverage)),
	"TestBrokenConnectionsKeepInvariants":   checkScenarios(brokenLineScenarios(), new(coverage)),
}

// TestFailFilesReplay replays, explicitly, every fail file committed under
// testdata/rapid/<TestName>/ as a regression: the counterexample a property once shrank runs on
// every `go test`, whatever the random seed, and fails while the bug it caught is there.
//
// rapid.Check replays the files of its own test too, but quietly skips a file it cannot use (a
// new rapid version, generators that changed since the file was written), and the regression
// would then be lost without a failure. Here such a file fails the test: record the
// counterexample again (run the property until it fails and keep the new file) or delete the
// file with the bug long fixed.
func TestFailFilesReplay(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "rapid", "*", "*.fail"))
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range files {
		test := filepath.Base(filepath.Dir(file))
		t.Run(filepath.Base(file), func(t *testing.T) {
			prop, ok := propertiesByTest[test]
			if !ok {
				t.Fatalf("%s: no property of this package is named %s", file, test)
			}
			input, err := readFailFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var replay *testing.T
			t.Run("replay", func(t *testing.T) {
				replay = t
				rapid.MakeFuzz(prop)(t, input)
			})
			if replay.Skipped() {
				t.Fatalf("%s no longer replays: its draws do not fit the generators of %s any more", file, test)
			}
		})
	}
}

// readFailFile reads a rapid fail file as the input of rapid.MakeFuzz: its words (hexadecimal
// 64-bit numbers, one per line after the "version#seed" line; "#" starts a comment line), in
// little-endian bytes.
func readFailFile(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var input []byte
	header := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case header == "":
			header = line
			if version, _, _ := strings.Cut(line, "#"); version != failFileVersion {
				return nil, fmt.Errorf("%s: format %q, want %q (rapid v1.3.0)", name, version, failFileVersion)
			}
		default:
			word, err := strconv.ParseUint(line, 0, 64)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			input = binary.LittleEndian.AppendUint64(input, word)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if header == "" || len(input) == 0 {
		return nil, fmt.Errorf("%s: no data", name)
	}
	return input, nil
}
