package main

import (
	"slices"
	"strings"
)

// configPrefix starts the name of every configuration variable.
const configPrefix = "CROWNS_"

// knownVariables are the names loadConfig reads, taken from loadConfig
// itself (every variable is read whatever the others say), so that no
// second list of names can drift from the one that declares them.
func knownVariables() []string {
	var names []string
	_, _ = loadConfig(func(name string) string {
		names = append(names, name)
		return ""
	})
	slices.Sort(names)
	return slices.Compact(names)
}

// unknownVariable is a CROWNS_* variable of the environment that no
// setting reads, and the known name closest to it.
type unknownVariable struct {
	name, closest string
}

// unknownVariables lists the CROWNS_* variables of environ (NAME=value
// entries, as os.Environ gives them) that the configuration does not
// read: most are misspellings, silently ignored otherwise.
func unknownVariables(environ []string) []unknownVariable {
	known := knownVariables()
	var unknown []unknownVariable
	for _, entry := range environ {
		name, _, _ := strings.Cut(entry, "=")
		if !strings.HasPrefix(name, configPrefix) {
			continue
		}
		if _, found := slices.BinarySearch(known, name); found {
			continue
		}
		unknown = append(unknown, unknownVariable{name: name, closest: closestName(name, known)})
	}
	return unknown
}

// closestName is the name of candidates with the fewest single-character
// edits from name (the first of equals). A candidate that name misspells
// the start of (CROWNS_RATE_LIMT for CROWNS_RATE_LIMIT_BURST) counts as
// that many edits plus one, so that it wins over short names that happen
// to be fewer edits away in all.
func closestName(name string, candidates []string) string {
	name = strings.ToUpper(name)
	best, bestDistance := "", -1
	for _, candidate := range candidates {
		d := editDistance(name, candidate)
		if len(candidate) > len(name) {
			d = min(d, editDistance(name, candidate[:len(name)])+1)
		}
		if bestDistance < 0 || d < bestDistance {
			best, bestDistance = candidate, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b, in bytes.
func editDistance(a, b string) int {
	previous := make([]int, len(b)+1)
	current := make([]int, len(b)+1)
	for j := range previous {
		previous[j] = j
	}
	for i := 1; i <= len(a); i++ {
		current[0] = i
		for j := 1; j <= len(b); j++ {
			substitution := previous[j-1]
			if a[i-1] != b[j-1] {
				substitution++
			}
			current[j] = min(previous[j]+1, current[j-1]+1, substitution)
		}
		previous, current = current, previous
	}
	return previous[len(b)]
}
