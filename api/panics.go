package api

import (
	"fmt"
	"runtime/debug"

	"github.com/crownsdev/crowns/keys"
)

// panicError is a panic of a request's work, caught and turned into an
// error: the request answers 500 with an event id, and the log line of
// that event holds the panic's value and stack, instead of the panic
// ending the process (and the bot and the scheduler with it).
type panicError struct {
	// value is the panic's value as text, anything in it that starts
	// like a key redacted.
	value string
	stack []byte
}

func (e *panicError) Error() string { return "panic: " + e.value }

// recoverInto, deferred by a function with a named error result, turns a
// panic of that function into a *panicError in *err.
func recoverInto(err *error) {
	if r := recover(); r != nil {
		*err = &panicError{value: keys.Redact(fmt.Sprint(r)), stack: debug.Stack()}
	}
}
