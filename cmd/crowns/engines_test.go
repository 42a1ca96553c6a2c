package main

import (
	"testing"

	"github.com/crownsdev/crowns/models/dbtest"
)

// commandEngine is a database a command test runs on: its
// CROWNS_DATABASE_URL, empty for the SQLite file of the data dir.
type commandEngine struct {
	name        string
	databaseURL func(t *testing.T) string
}

// commandEngines are SQLite and a fresh PostgreSQL schema.
func commandEngines() []commandEngine {
	return []commandEngine{
		{"sqlite", func(*testing.T) string { return "" }},
		{"postgres", func(t *testing.T) string { return dbtest.PostgresURL(t) }},
	}
}
