package main

import (
	"bufio"
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// lineWatch is a writer that says on found once what it was written
// holds want.
type lineWatch struct {
	mu    sync.Mutex
	text  strings.Builder
	want  string
	found chan struct{}
	once  sync.Once
}

func (w *lineWatch) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.text.Write(p)
	if strings.Contains(w.text.String(), w.want) {
		w.once.Do(func() { close(w.found) })
	}
	return len(p), nil
}

func (w *lineWatch) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.text.String()
}

// wrkCommand is a wrk command line the export prints.
var wrkCommand = regexp.MustCompile(`wrk -t2 -c4 -d10s -s (\S+) http://(\S+) -- (\S+)`)

// TestWrkExportHoldsEveryRowUpForWrk: --wrk writes every row's requests
// and the script, and holds crowns and a bare server per row up, each
// answering the row's requests as the row wants, until interrupted. Where
// wrk is installed (CI installs it), the script is run against crowns
// with one of the rows and every answer must be a 200: the script sends
// the rows' keys.
func TestWrkExportHoldsEveryRowUpForWrk(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	stdout := &lineWatch{want: "holding the servers up", found: make(chan struct{})}
	var stderr strings.Builder
	code, exited := 0, make(chan struct{})
	go func() {
		defer close(exited)
		code = run(ctx, []string{"--wrk", dir, "--connections", "4", "--keys", "20", "--clans", "5", "--crowns", builtCrowns(t)}, stdout, &stderr)
	}()
	// However the test ends, the run stops its crowns and bare servers
	// before the test binary exits.
	t.Cleanup(func() { cancel(); <-exited })
	select {
	case <-stdout.found:
	case <-exited:
		t.Fatalf("crowns-bench --wrk exited with %d before holding:\n%s", code, stderr.String())
	case <-time.After(3 * time.Minute):
		t.Fatalf("crowns-bench --wrk did not hold the servers up:\n%s", stdout.String())
	}
	commands := wrkCommand.FindAllStringSubmatch(stdout.String(), -1)
	if len(commands) != 2*len(rowNames) {
		t.Fatalf("%d wrk command lines, want two (bare, crowns) for each of %d rows:\n%s", len(commands), len(rowNames), stdout.String())
	}
	for i := 0; i < len(commands); i += 2 {
		bare, crowns := commands[i], commands[i+1]
		if bare[1] != crowns[1] || bare[3] != crowns[3] || bare[2] == crowns[2] {
			t.Fatalf("the commands of a row differ in script or requests, or ask the same server:\n%s\n%s", bare[0], crowns[0])
		}
		first := firstRequest(t, crowns[3], sequenceLength)
		want := http.StatusOK
		if strings.HasPrefix(filepath.Base(crowns[3]), "row7-") || strings.HasPrefix(filepath.Base(crowns[3]), "row8-") {
			want = http.StatusUnauthorized
		}
		for _, addr := range []string{bare[2], crowns[2]} {
			if got := ask(t, addr, first); got != want {
				t.Errorf("%s answered %s (%s) with %d, want %d", addr, first[0], crowns[3], got, want)
			}
		}
	}
	if wrk, err := exec.LookPath("wrk"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI needs wrk to try the exported script (.ci/run installs it): %v", err)
		}
		t.Logf("no wrk: the exported script is not run")
	} else {
		battles := commands[7] // player battles, identity client, against crowns
		out, err := exec.Command(wrk, "-t1", "-c2", "-d1s", "-s", battles[1], "http://"+battles[2], "--", battles[3]).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "requests in") || strings.Contains(string(out), "Non-2xx") || strings.Contains(string(out), "Socket errors") {
			t.Fatalf("wrk with the exported script: %v\n%s", err, out)
		}
	}
	cancel()
	if <-exited; code != exitOK {
		t.Fatalf("crowns-bench --wrk exited with %d once interrupted:\n%s", code, stderr.String())
	}
}

// firstRequest is the first line of an exported requests file, split in
// path, key and client, after checking that the file has lines requests.
func firstRequest(t *testing.T, path string, lines int) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var first []string
	n := 0
	for s := bufio.NewScanner(f); s.Scan(); n++ {
		fields := strings.Split(s.Text(), "\t")
		if len(fields) != 3 || fields[1] == "" || (fields[2] != "gzip" && fields[2] != "identity") {
			t.Fatalf("%s line %d: %q, want path, key and client", filepath.Base(path), n+1, s.Text())
		}
		if first == nil {
			first = fields
		}
	}
	if n != lines {
		t.Fatalf("%s has %d requests, want %d", filepath.Base(path), n, lines)
	}
	return first
}

// ask sends one exported request to addr and returns the status.
func ask(t *testing.T, addr string, request []string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, "http://"+addr+request[0], nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("auth", request[1])
	if request[2] == "gzip" {
		req.Header.Set("Accept-Encoding", "gzip")
	}
	// Without DisableCompression, the transport would ask for gzip on
	// an identity row's behalf.
	resp, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}
