package store_test

import (
	"context"
	"errors"
	"net"
	"testing"

	"github.com/crownsdev/crowns/models/store"
)

// TestOpenEndsWithItsContextWhileTheDatabaseDoesNotAnswer: a PostgreSQL
// server that takes the connection but never answers holds Open only
// until its context ends (a stop signal during start-up), not until the
// connect timeout of the URL.
func TestOpenEndsWithItsContextWhileTheDatabaseDoesNotAnswer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	silent := make(chan net.Conn, 1)
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		silent <- conn
		cancel() // the stop signal, once Open is waiting for the server
	}()
	defer func() {
		select {
		case conn := <-silent:
			_ = conn.Close()
		default:
		}
	}()
	_, err = store.Open(ctx, store.DatabaseConfig{URL: "postgres://postgres@" + ln.Addr().String() + "/postgres?sslmode=disable&connect_timeout=10"})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Open of a silent server whose context ended: %v, want context.Canceled", err)
	}
}
