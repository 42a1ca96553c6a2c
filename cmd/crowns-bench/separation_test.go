package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// benchMarks are what production code carrying something for the load
// benchmark says of it: the old command, the bench by name, a hook
// "compared fairly" or "as in benchmarks".
var benchMarks = regexp.MustCompile(`(?i)crowns[ -]bench|\bbench\b|compared fairly|as in benchmarks|parallel benchmarks|cmd/crowns-bench`)

// TestNoProductionPackageReferencesTheBench: nothing of the benchmark
// is in the packages the crowns binary is made of (their tests aside:
// go test benchmarks are benchmarks).
func TestNoProductionPackageReferencesTheBench(t *testing.T) {
	root := filepath.Join("..", "..")
	scanned := 0
	for _, dir := range []string{"api", "models", "keys", "upstream", "scheduler", "bot", "internal", filepath.Join("cmd", "crowns")} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if os.IsNotExist(err) && path == filepath.Join(root, dir) {
				return filepath.SkipDir // a package the layout does not have yet
			}
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			body, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			scanned++
			for i, line := range strings.Split(string(body), "\n") {
				if benchMarks.MatchString(line) {
					t.Errorf("%s:%d references the bench: %s", path, i+1, strings.TrimSpace(line))
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if scanned < 50 {
		t.Fatalf("only %d production files scanned: wrong root?", scanned)
	}
}
