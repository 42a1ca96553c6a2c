package scheduler

import (
	"fmt"
	"strings"
)

// ConfigProblem is one problem of a configuration: the field it is of,
// and what is wrong with it, worded to follow the field's name.
type ConfigProblem struct {
	Field   string
	Problem string
}

// ConfigProblems is every problem a configuration has; its error text
// names the fields.
type ConfigProblems []ConfigProblem

func (p *ConfigProblems) add(field, format string, args ...any) {
	*p = append(*p, ConfigProblem{Field: field, Problem: fmt.Sprintf(format, args...)})
}

// Error is each problem after its field's name.
func (p ConfigProblems) Error() string {
	return strings.Join(p.Named(nil), "; ")
}

// Named is each problem after the name names gives its field (the
// setting an operator knows it by), or the field's own name where names
// has none.
func (p ConfigProblems) Named(names map[string]string) []string {
	out := make([]string, len(p))
	for i, problem := range p {
		name := problem.Field
		if named, ok := names[name]; ok {
			name = named
		}
		out[i] = name + " " + problem.Problem
	}
	return out
}
