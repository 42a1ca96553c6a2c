// Package upstream is Crowns' source of game data: a client of the official
// game API v1 (clans, clan search, battle logs, tournaments, cards,
// locations) that maps the answers into the records of package models and
// the response shapes of package models/legacy.
//
// It is the boundary where upstream failures enter the project: every call
// returns models.ErrNotFound, a models.ValidationError or a
// models.UnavailableError, never upstream error text meant for a client.
// Calls are bounded in time (retries included) and in concurrency, and
// transient failures are retried with jittered exponential backoff.
//
// Subpackages: official (the official API's JSON shapes), catalog (the
// project's own game facts) and sandbox (a deterministic offline world
// served in the official format).
package upstream
