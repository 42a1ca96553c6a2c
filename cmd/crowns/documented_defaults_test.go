package main

import (
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// settingsRow is a row of a document's table of settings: the variables
// its first cell names and its default cell.
type settingsRow struct {
	names    []string
	defaults string
}

// settingsTableHeader begins the header of every table of settings in the
// documents: | variable | default | meaning |.
const settingsTableHeader = "| variable | default |"

// settingsRows reads the rows of the tables of settings in text.
func settingsRows(text string) []settingsRow {
	var rows []settingsRow
	inTable := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, settingsTableHeader) {
			inTable = true
			continue
		}
		if !strings.HasPrefix(line, "|") {
			inTable = false
			continue
		}
		cells := strings.Split(line, "|")
		if !inTable || len(cells) < 4 || strings.HasPrefix(cells[1], "---") {
			continue
		}
		names := variableName.FindAllString(cells[1], -1)
		if len(names) > 0 {
			rows = append(rows, settingsRow{names: names, defaults: strings.TrimSpace(cells[2])})
		}
	}
	return rows
}

// documentedDefault is a default cell (or one of its " / " parts) that
// gives a value: one code span, nothing else. Prose ("none", "generated
// into the data dir", "`CROWNS_CACHE_MB` + 64") gives none.
var documentedDefault = regexp.MustCompile("^`([^`]+)`$")

// TestDocumentedDefaultsAreTheDefaults: each default the tables of
// settings of the README, docs/operations.md and docs/tournaments.md give
// as a value is the one the configuration uses when the variable is unset,
// as the start-up summary prints it. An operator who leaves a setting out
// because its documented default suits them gets that default.
func TestDocumentedDefaultsAreTheDefaults(t *testing.T) {
	// A game-API token, so that the summary prints the upstream URL in
	// use rather than the sandbox's note.
	cfg, err := loadConfig(func(name string) string {
		if name == "CROWNS_UPSTREAM_TOKEN" {
			return "token"
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	inUse := map[string]slog.Value{}
	for _, s := range cfg.summary() {
		inUse[s.Key] = s.Value
	}
	root := filepath.Join("..", "..")
	for _, tt := range []struct {
		file    string
		atLeast int
	}{
		{"README.md", 30},
		{filepath.Join("docs", "operations.md"), 3},
		{filepath.Join("docs", "tournaments.md"), 6},
	} {
		text, err := os.ReadFile(filepath.Join(root, tt.file))
		if err != nil {
			t.Fatal(err)
		}
		compared := 0
		for _, row := range settingsRows(string(text)) {
			parts := []string{row.defaults}
			if len(row.names) > 1 {
				parts = strings.Split(row.defaults, " / ")
			}
			if len(parts) != len(row.names) {
				t.Errorf("%s: the row of %v gives %d defaults (%q), want one a variable, parted by \" / \"", tt.file, row.names, len(parts), row.defaults)
				continue
			}
			for i, name := range row.names {
				match := documentedDefault.FindStringSubmatch(strings.TrimSpace(parts[i]))
				value, read := inUse[name]
				if match == nil || !read {
					continue
				}
				compared++
				if !sameSetting(value, match[1]) {
					t.Errorf("%s documents %s's default as %q; unset, it is %q", tt.file, name, match[1], value.String())
				}
			}
		}
		if compared < tt.atLeast {
			t.Errorf("%s: %d documented defaults compared, want at least %d: are its tables still headed %q?", tt.file, compared, tt.atLeast, settingsTableHeader)
		}
	}
}

// sameSetting reports whether a summary's value is the one a document
// writes: durations as durations (3m is 3m0s), the rest as printed.
func sameSetting(value slog.Value, documented string) bool {
	if value.Kind() == slog.KindDuration {
		d, err := time.ParseDuration(documented)
		return err == nil && d == value.Duration()
	}
	return value.String() == documented
}
