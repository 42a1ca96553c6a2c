package main

import (
	"bytes"
	"encoding/base64"
	"testing"

	"github.com/crownsdev/crowns/models/store/storetest"
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
		{"postgres", func(t *testing.T) string { return storetest.PostgresURL(t) }},
	}
}

// testSecret is the CROWNS_SECRET of command tests on PostgreSQL.
var testSecret = base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{9}, 32))

// useDatabase points env at databaseURL; PostgreSQL also needs the
// deployment's secret.
func useDatabase(env map[string]string, databaseURL string) map[string]string {
	if databaseURL != "" {
		env["CROWNS_DATABASE_URL"] = databaseURL
		env["CROWNS_SECRET"] = testSecret
	}
	return env
}
