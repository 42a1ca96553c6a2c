package main

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"testing"
	"time"
)

// TestTheStartingServerHandsItsListenerOver: after handOver the listener
// is still open, a connection made before the next server serves waits in
// its queue (neither refused nor answered by the starting server) and is
// answered by the next server, and a request the starting server took
// before the hand-over is still answered, by it, before finish returns.
func TestTheStartingServerHandsItsListenerOver(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	entered, release := make(chan struct{}), make(chan struct{})
	starting := answerWhileStarting(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			close(entered)
			<-release
		}
		w.Header().Set("Connection", "close")
		_, _ = io.WriteString(w, "starting")
	}), slog.New(slog.DiscardHandler))
	if starting == nil {
		t.Fatal("no starting server on a TCP listener")
	}
	url := "http://" + ln.Addr().String()
	if got := getText(t, url+"/"); got != "starting" {
		t.Fatalf("before the hand-over: %q, want the starting server's answer", got)
	}
	slow := make(chan string, 1)
	go func() { slow <- getText(t, url+"/slow") }()
	<-entered

	starting.handOver()
	queued, err := net.DialTimeout("tcp", ln.Addr().String(), 5*time.Second)
	if err != nil {
		t.Fatalf("a connection between the hand-over and the next server: %v", err)
	}
	defer queued.Close()
	_ = queued.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(queued, "GET / HTTP/1.1\r\nHost: crowns\r\nConnection: close\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	next := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "next")
	})}
	go func() { _ = next.Serve(ln) }()
	defer next.Close()
	resp, err := http.ReadResponse(bufio.NewReader(queued), nil)
	if err != nil {
		t.Fatalf("the connection queued at the hand-over: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	if string(body) != "next" {
		t.Fatalf("the connection queued at the hand-over got %q, want the next server's answer", body)
	}
	if got := getText(t, url+"/"); got != "next" {
		t.Fatalf("after the hand-over: %q, want the next server's answer", got)
	}

	finished := make(chan struct{})
	go func() {
		starting.finish(context.Background())
		close(finished)
	}()
	select {
	case <-finished:
		t.Fatal("finish returned while a request the starting server took was unanswered")
	default:
	}
	close(release)
	if got := <-slow; got != "starting" {
		t.Fatalf("the request in flight at the hand-over: %q, want the starting server's answer", got)
	}
	<-finished
}

// getText GETs url on a connection of its own and returns the body.
func getText(t *testing.T, url string) string {
	t.Helper()
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}}
	resp, err := client.Get(url)
	if err != nil {
		t.Errorf("GET %s: %v", url, err)
		return ""
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Errorf("GET %s: %v", url, err)
	}
	return string(body)
}
