package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// goTestRun is a go test command line that names a test to run: its
// words up to the end of the line or of the code span.
var goTestRun = regexp.MustCompile("go test [^`\n]*-run '?(Test\\w+)")

// TestDocumentedTestCommandsFindTheirTests: a go test command given in the
// README, in docs/ or in a Go comment, that runs one test by name, names
// a package holding that test. go test of a package without it runs
// nothing and passes, so a command copied from the documents would
// silently measure or check nothing.
func TestDocumentedTestCommandsFindTheirTests(t *testing.T) {
	root := filepath.Join("..", "..")
	found := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || (!strings.HasSuffix(path, ".md") && !strings.HasSuffix(path, ".go")) {
			return nil
		}
		text, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, line := range strings.Split(string(text), "\n") {
			match := goTestRun.FindStringSubmatch(line)
			if match == nil {
				continue
			}
			found++
			var packages []string
			for _, word := range strings.Fields(match[0]) {
				if strings.HasPrefix(word, "./") {
					packages = append(packages, strings.TrimSuffix(word, "/..."))
				}
			}
			if !declaresTest(t, root, packages, match[1]) {
				t.Errorf("%s: %q runs %s, which none of %v declares", path, strings.TrimSpace(line), match[1], packages)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found == 0 {
		t.Fatal("no documented go test command found: the pattern no longer matches them")
	}
}

// declaresTest reports whether a _test.go file of one of the packages
// (folders below root) declares the test function name.
func declaresTest(t *testing.T, root string, packages []string, name string) bool {
	t.Helper()
	declaration := "func " + name + "("
	for _, pkg := range packages {
		files, err := filepath.Glob(filepath.Join(root, pkg, "*_test.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, file := range files {
			text, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(text), declaration) {
				return true
			}
		}
	}
	return false
}
