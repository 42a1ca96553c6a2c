package models

import (
	"errors"
	"fmt"
	"time"
)

// Sentinel errors. Every role returns (or wraps) these; the api package maps
// them to HTTP statuses in one table, the bot to friendly texts.
var (
	// ErrNotFound: the clan, player, tournament or developer does not exist.
	ErrNotFound = errors.New("not found")
	// ErrInvalid: the input is malformed. Wrapped by ValidationError, whose
	// message is safe to show to the caller.
	ErrInvalid = errors.New("invalid input")
	// ErrUnavailable: a dependency (the game upstream or the database) cannot
	// answer right now. Wrapped by UnavailableError.
	ErrUnavailable = errors.New("temporarily unavailable")
	// ErrNotTracked: history was asked of a clan that is not tracked.
	ErrNotTracked = errors.New("clan not tracked")
	// ErrWeeklyNotEnabled: weekly history was asked of a tracked clan without
	// weekly collection.
	ErrWeeklyNotEnabled = errors.New("weekly history not enabled for this clan")
	// ErrAddressMissing: a track request for a clan whose description lacks
	// the configured address. Wrapped by AddressMissingError.
	ErrAddressMissing = errors.New("tracking address missing from clan description")
	// ErrNotImplemented: the route exists but is switched off.
	ErrNotImplemented = errors.New("not implemented")

	// ErrMissingKey: the request carried no developer key.
	ErrMissingKey = errors.New("missing authentication key")
	// ErrUnknownKey: the key is malformed, unknown, replaced or revoked.
	ErrUnknownKey = errors.New("unknown key")
	// ErrKeyDisabled: the key's owner left the community server.
	ErrKeyDisabled = errors.New("key disabled: owner left the community server")
	// ErrKeyBlacklisted: the key or its developer is blacklisted.
	ErrKeyBlacklisted = errors.New("key blacklisted")
	// ErrDeveloperBlacklisted: a blacklisted developer asked for a key.
	ErrDeveloperBlacklisted = errors.New("developer is blacklisted")
)

// ValidationError is an ErrInvalid whose Message is written for the caller,
// for example "invalid value for 'limit': must be between 1 and 100".
type ValidationError struct {
	Message string
}

// Invalid returns a ValidationError with a formatted, caller-safe message.
func Invalid(format string, args ...any) error {
	return &ValidationError{Message: fmt.Sprintf(format, args...)}
}

// InvalidParam returns the ValidationError for a bad query value.
func InvalidParam(param, why string) error {
	return &ValidationError{Message: fmt.Sprintf("invalid value for '%s': %s", param, why)}
}

// Error is the message, safe to show the caller.
func (e *ValidationError) Error() string { return e.Message }

// Is makes errors.Is(err, ErrInvalid) true.
func (e *ValidationError) Is(target error) bool { return target == ErrInvalid }

// MaxDatabaseWait is the contract's bound of any wait on the database: an
// answer never waits longer for it (503 instead), nor does work a request
// started and others share.
const MaxDatabaseWait = 5 * time.Second

// DatabaseRetryAfter is the wait a client is advised (Retry-After) when
// the database cannot answer, or not within MaxDatabaseWait.
const DatabaseRetryAfter = 5 * time.Second

// UnavailableError is an ErrUnavailable that says when to try again and
// keeps the cause for the log (never for the client).
type UnavailableError struct {
	// Source names the dependency: "upstream" or "database".
	Source string
	// RetryAfter is the advised wait; zero means the caller picks a default.
	RetryAfter time.Duration
	// Cause is the underlying error, for logs.
	Cause error
}

// Unavailable wraps cause as an UnavailableError of source.
func Unavailable(source string, retryAfter time.Duration, cause error) error {
	return &UnavailableError{Source: source, RetryAfter: retryAfter, Cause: cause}
}

// Error names the source and, for logs, the cause.
func (e *UnavailableError) Error() string {
	if e.Cause == nil {
		return e.Source + " unavailable"
	}
	return e.Source + " unavailable: " + e.Cause.Error()
}

// Unwrap exposes the cause to errors.Is and errors.As.
func (e *UnavailableError) Unwrap() error { return e.Cause }

// Is makes errors.Is(err, ErrUnavailable) true.
func (e *UnavailableError) Is(target error) bool { return target == ErrUnavailable }

// AddressMissingError is the ErrAddressMissing of a track request; Address
// is the configured address the description must contain.
type AddressMissingError struct {
	Address string
}

// Error says which address the description should contain.
func (e *AddressMissingError) Error() string {
	return fmt.Sprintf("clan should have '%s' in description", e.Address)
}

// Is makes errors.Is(err, ErrAddressMissing) true.
func (e *AddressMissingError) Is(target error) bool { return target == ErrAddressMissing }
