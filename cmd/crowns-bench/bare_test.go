package main

import (
	"bytes"
	"net/http"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
)

// TestBareServerReplaysTheWholeAnswer: a client reads from the bare
// server the status, headers and body Crowns answered, so that both cost
// the client the same.
func TestBareServerReplaysTheWholeAnswer(t *testing.T) {
	var replay answers
	replay[0] = map[string]answer{}
	replay[1] = map[string]answer{"/player/2PP/battles": {
		Status: http.StatusOK, ContentType: "application/json", ContentEncoding: "gzip",
		Headers: [][2]string{{"X-Ratelimit-Remaining", "19"}, {"Etag", `"1-2"`}, {"Vary", "auth, Authorization, Accept-Encoding"}},
		Body:    []byte("compressed"),
	}}
	bare, err := startBareServer(replay, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = bare.app.Shutdown() }()
	fetched, err := fetchAll(t.Context(), bare.addr, []draw{{uri: "/player/2PP/battles", key: "k"}}, true)
	if err != nil {
		t.Fatal(err)
	}
	got, want := fetched[0], replay[1]["/player/2PP/battles"]
	if got.Status != want.Status || got.ContentType != want.ContentType || got.ContentEncoding != want.ContentEncoding || !bytes.Equal(got.Body, want.Body) {
		t.Fatalf("replayed %+v, want %+v", got, want)
	}
	if !slices.Equal(got.Headers, want.Headers) {
		t.Fatalf("replayed headers %q, want %q", got.Headers, want.Headers)
	}
}

func TestReplayedHeadersLeaveOutWhatEveryServerSets(t *testing.T) {
	var h fasthttp.ResponseHeader
	h.Set(fasthttp.HeaderDate, "today")
	h.Set(fasthttp.HeaderServer, "crowns")
	h.SetContentLength(10)
	h.SetContentType("application/json")
	h.Set(fasthttp.HeaderContentEncoding, "gzip")
	h.Set("X-Cached", "true")
	got := replayedHeaders(&h)
	if len(got) != 1 || got[0] != [2]string{"X-Cached", "true"} {
		t.Fatalf("replayed %q, want only X-Cached", got)
	}
}

// TestProcessCPUReadsTheTimeSpent: the CPU time of a process that works
// grows, as /proc tells it.
func TestProcessCPUReadsTheTimeSpent(t *testing.T) {
	start := processCPU(os.Getpid())
	deadline := time.Now().Add(10 * time.Second)
	worked := 0
	for processCPU(os.Getpid()) <= start {
		if time.Now().After(deadline) {
			t.Fatal("the CPU time of a busy process never grew")
		}
		worked ^= spin()
	}
	t.Logf("worked %d", worked)
	if ownCPU() <= 0 {
		t.Fatal("the load generator's own CPU time is zero")
	}
}

// spin keeps a core busy for a while.
func spin() int {
	x := 0
	for i := range 10_000_000 {
		x ^= i * i
	}
	return x
}

// TestBareProcessListensWhereItSays: the bare server's process listens
// on a port the system chose and says which, so that no other process
// can hold the port it is asked on, and the load reaches the bare server
// and nothing else.
func TestBareProcessListensWhereItSays(t *testing.T) {
	var replay answers
	replay[0] = map[string]answer{"/clan/search?name=royal": {Status: http.StatusOK, ContentType: "application/json", Body: []byte("[]")}}
	replay[1] = map[string]answer{}
	addr, pid, stop, err := startBareProcess(t.Context(), t.TempDir(), replay)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if pid == os.Getpid() || pid <= 0 {
		t.Fatalf("pid %d, want the bare server's own process", pid)
	}
	fetched, err := fetchAll(t.Context(), addr, []draw{{uri: "/clan/search?name=royal", key: "k"}}, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := fetched[0]; got.Status != http.StatusOK || string(got.Body) != "[]" {
		t.Fatalf("the bare server at %s answered %+v", addr, got)
	}
}

// TestFirstLineSendsTheFirstLineOnceWhole: the bare server's output may
// come in pieces; its first line is sent once it is whole, and nothing
// after it is.
func TestFirstLineSendsTheFirstLineOnceWhole(t *testing.T) {
	said := make(chan string, 2)
	out := &firstLine{said: said}
	for _, piece := range []string{"listening ", "on 127.0.0.1:9", "\nmore\n", "and more\n"} {
		if n, err := out.Write([]byte(piece)); n != len(piece) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", piece, n, err)
		}
	}
	close(said)
	var lines []string
	for line := range said {
		lines = append(lines, line)
	}
	if len(lines) != 1 || lines[0] != "listening on 127.0.0.1:9\n" {
		t.Fatalf("sent %q, want the first line alone", lines)
	}
}
