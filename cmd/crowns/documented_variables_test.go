package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// variableName is a configuration variable's name as the documents write
// it; a pattern of names (CROWNS_*, CROWNS_TOURNAMENT_*) matches with its
// "_*" and is not one.
var variableName = regexp.MustCompile(`CROWNS_[A-Z0-9_]*[A-Z0-9](_\*)?`)

// TestReadmeConfigurationTableListsEveryVariable: the README's table of
// settings names every CROWNS_* variable the configuration reads, each in
// one row only, and no variable it does not read. A setting added to
// config.go without a row, or a row left behind by a renamed setting,
// fails here rather than misleading an operator.
func TestReadmeConfigurationTableListsEveryVariable(t *testing.T) {
	section := documentSection(t, "README.md", "Configuration")
	known := knownVariables()
	rows := map[string]int{}
	for _, row := range settingsRows(section) {
		for _, name := range row.names {
			rows[name]++
			if _, ok := slices.BinarySearch(known, name); !ok {
				t.Errorf("README's configuration table documents %s, which the configuration does not read", name)
			}
		}
	}
	for _, name := range known {
		switch rows[name] {
		case 0:
			t.Errorf("README's configuration table has no row for %s, which the configuration reads", name)
		case 1:
		default:
			t.Errorf("README's configuration table names %s in %d rows, want one", name, rows[name])
		}
	}
}

// documentSection is the text of a document of the repository (a path
// below its root) under the level-2 heading, up to the next one.
func documentSection(t *testing.T, file, heading string) string {
	t.Helper()
	text, err := os.ReadFile(filepath.Join("..", "..", file))
	if err != nil {
		t.Fatal(err)
	}
	_, section, found := strings.Cut(string(text), "\n## "+heading+"\n")
	if !found {
		t.Fatalf("%s has no \"## %s\" section", file, heading)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	return section
}

// TestDocumentsNameOnlyReadVariables: every CROWNS_* variable the README,
// docs/, docker/ or the OpenAPI document names is one the configuration
// reads (CROWNS_TEST_*, read by the tests' database helper, aside): a
// document that sets a misspelled or removed variable would have it
// silently ignored.
func TestDocumentsNameOnlyReadVariables(t *testing.T) {
	root := filepath.Join("..", "..")
	files := []string{filepath.Join(root, "README.md"), filepath.Join(root, "api", "openapi", "openapi.yaml")}
	for _, pattern := range []string{"docs/*.md", "docker/*"} {
		matches, err := filepath.Glob(filepath.Join(root, pattern))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, matches...)
	}
	known := knownVariables()
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		text, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range variableName.FindAllString(string(text), -1) {
			if strings.HasSuffix(name, "_*") {
				continue
			}
			if _, ok := slices.BinarySearch(known, name); !ok && !strings.HasPrefix(name, "CROWNS_TEST_") {
				t.Errorf("%s names %s, which the configuration does not read", file, name)
			}
		}
	}
}
