package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// wrkScript is the wrk script of every exported row: each thread reads
// the row's requests (path, key and client, one a line, tab-separated)
// from the file named by its first argument, formats them once, and then
// sends them in order round the sequence, each thread starting at its own
// part of it, as the bench's own connections do.
const wrkScript = `-- wrk script written by crowns-bench --wrk: sends one row's requests.
-- Usage: wrk -t2 -c32 -d10s -s THIS_FILE http://HOST:PORT -- REQUESTS_FILE
local threads = 0
function setup(thread)
  thread:set("part", threads)
  threads = threads + 1
end

local requests, next_request = {}, 1
function init(args)
  local file = assert(io.open(args[1], "r"))
  for line in file:lines() do
    local uri, key, gzip = line:match("^([^\t]*)\t([^\t]*)\t([^\t]*)$")
    local headers = {}
    if key ~= "" then headers["auth"] = key end
    if gzip == "gzip" then headers["Accept-Encoding"] = "gzip" end
    requests[#requests + 1] = wrk.format("GET", uri, headers)
  end
  file:close()
  next_request = 1 + (part * 7919) % #requests
end

function request()
  local r = requests[next_request]
  next_request = next_request % #requests + 1
  return r
end
`

// exportedRow is one row as written for an external load tool.
type exportedRow struct {
	name     string
	bareAddr string
	// requests is the file of the row's requests.
	requests string
}

// exportForWrk writes every row's requests for wrk under dir, one file a
// row beside the one script they share, starts a bare server replaying
// each row's answers, prints where everything is with the commands to
// run, and holds Crowns and the bare servers up until ctx ends, so that
// an independent load tool measures the same requests against both.
func (b *hotBench) exportForWrk(ctx context.Context, rows []rowSpec, dir string, stdout io.Writer) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	script := filepath.Join(dir, "rows.lua")
	if err := os.WriteFile(script, []byte(wrkScript), 0o600); err != nil {
		return err
	}
	var exported []exportedRow
	for i, row := range rows {
		b.progress("%s, %s client: fetching its distinct answers from crowns", row.name, row.clientName())
		replay, err := fetchAnswers(ctx, b.crowns.addr, row)
		if err != nil {
			return err
		}
		bareAddr, _, stopBare, err := startBareProcess(ctx, b.dir, replay)
		if err != nil {
			return err
		}
		defer stopBare()
		path := filepath.Join(dir, fmt.Sprintf("row%d-%s-%s.tsv", i+1, fileWord(row.name), row.clientName()))
		if err := writeRequests(path, row); err != nil {
			return err
		}
		exported = append(exported, exportedRow{name: row.name + ", " + row.clientName() + " client", bareAddr: bareAddr, requests: path})
	}
	fmt.Fprintf(stdout, "crowns listens on %s; each row's bare server below. Run, for each row, against both:\n", b.crowns.addr)
	for _, e := range exported {
		fmt.Fprintf(stdout, "\n%s (bare on %s):\n  wrk -t2 -c%d -d10s -s %s http://%s -- %s\n  wrk -t2 -c%d -d10s -s %s http://%s -- %s\n",
			e.name, e.bareAddr, b.req.connections, script, e.bareAddr, e.requests, b.req.connections, script, b.crowns.addr, e.requests)
	}
	fmt.Fprintln(stdout, "\nholding the servers up until interrupted (Ctrl-C)")
	<-ctx.Done()
	return nil
}

// writeRequests writes row's requests to path, one a line: path and
// query, key and client ("gzip" or "identity"), tab-separated.
func writeRequests(path string, row rowSpec) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	for _, d := range row.draws {
		fmt.Fprintf(w, "%s\t%s\t%s\n", d.uri, d.key, row.clientName())
	}
	err = w.Flush()
	if closeErr := f.Close(); err == nil {
		err = closeErr
	}
	return err
}

// fileWord is a row's name as a word of a file name: "history
// (days=7)" is "history-days-7".
func fileWord(name string) string {
	fields := strings.FieldsFunc(strings.ToLower(name), func(r rune) bool {
		return (r < 'a' || r > 'z') && (r < '0' || r > '9')
	})
	return strings.Join(fields, "-")
}
