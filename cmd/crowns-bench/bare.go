package main

import (
	"bytes"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/gofiber/fiber/v2"
)

// answer is one answer of Crowns as a client received it: what the bare
// server replays, headers included, so that a client reads the same bytes
// from either server.
type answer struct {
	Status          int
	ContentType     string
	ContentEncoding string
	// Headers are the answer's other headers (rate-limit, ETag, Vary,
	// request id...), as replayedHeaders keeps them.
	Headers [][2]string
	Body    []byte
}

// answers are the answers of a row by the request's path and query: [0]
// those to identity clients, [1] to gzip clients.
type answers [2]map[string]answer

// clientIndex is the index into answers of a client that takes gzip or
// not.
func clientIndex(gzip bool) int {
	if gzip {
		return 1
	}
	return 0
}

// bareServer is the ceiling the bench compares Crowns with: a Fiber app
// with Crowns' route patterns that answers each request with the status,
// headers and body Crowns answered it with, and does nothing else.
type bareServer struct {
	app *fiber.App
	// addr is where it listens.
	addr string
}

// bareRoutes are the route patterns of the bare server: those of the
// rows.
var bareRoutes = []string{"/clan/search", "/clan/:tag/history", "/player/:tag/battles"}

// bareCommand is the hidden command line of the bare server's process:
// crowns-bench bare-server ANSWERS-FILE ADDR.
const bareCommand = "bare-server"

// startBareProcess runs the bare server as a process of its own, like
// Crowns, so that neither shares the load generator's Go runtime: it
// writes replay to a file in dir and starts this executable with
// bareCommand, which listens on a loopback port of the system's choosing
// and says which on its first line of output; it returns that address,
// the process's id and the function that stops it.
func startBareProcess(ctx context.Context, dir string, replay answers) (addr string, pid int, stop func(), err error) {
	path := filepath.Join(dir, "bare-answers.gob")
	f, err := os.Create(path)
	if err != nil {
		return "", 0, nil, err
	}
	err = gob.NewEncoder(f).Encode(replay)
	if closeErr := f.Close(); err == nil {
		err = closeErr
	}
	if err != nil {
		return "", 0, nil, fmt.Errorf("bare answers: %w", err)
	}
	self, err := os.Executable()
	if err != nil {
		return "", 0, nil, err
	}
	cmd := exec.Command(self, bareCommand, path, "127.0.0.1:0")
	cmd.Stderr = os.Stderr
	said := make(chan string, 1)
	cmd.Stdout = &firstLine{said: said}
	if err := cmd.Start(); err != nil {
		return "", 0, nil, fmt.Errorf("start the bare server: %w", err)
	}
	var waitErr error
	exited := make(chan struct{})
	go func() {
		waitErr = cmd.Wait()
		close(exited)
	}()
	stop = func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		<-exited
	}
	select {
	case line := <-said:
		if addr, ok := strings.CutPrefix(strings.TrimSpace(line), bareListening); ok {
			return addr, cmd.Process.Pid, stop, nil
		}
		stop()
		return "", 0, nil, fmt.Errorf("the bare server did not listen (it said %q)", line)
	case <-exited:
		return "", 0, nil, fmt.Errorf("the bare server ended before it listened: %v", waitErr)
	case <-time.After(30 * time.Second):
	case <-ctx.Done():
	}
	stop()
	return "", 0, nil, errors.New("the bare server did not listen within 30s")
}

// firstLine is a process's output that sends its first line, once
// whole, to said and drops the rest. As the command's Stdout, rather than
// a pipe read beside it, it is copied to by os/exec itself, whose Wait
// returns once the copy ends.
type firstLine struct {
	line []byte
	said chan<- string
	sent bool
}

func (f *firstLine) Write(p []byte) (int, error) {
	if f.sent {
		return len(p), nil
	}
	f.line = append(f.line, p...)
	if i := bytes.IndexByte(f.line, '\n'); i >= 0 {
		f.said <- string(f.line[:i+1])
		f.sent, f.line = true, nil
	}
	return len(p), nil
}

// bareListening begins the bare server's line saying where it listens.
const bareListening = "listening on "

// serveBare is the bare server's process: it serves the answers of path
// on addr until ctx ends, once listening writing where to stdout.
func serveBare(ctx context.Context, path, addr string, stdout io.Writer) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	var replay answers
	err = gob.NewDecoder(f).Decode(&replay)
	_ = f.Close()
	if err != nil {
		return fmt.Errorf("bare answers: %w", err)
	}
	bare, err := startBareServer(replay, addr)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintln(stdout, bareListening+bare.addr); err != nil {
		return err
	}
	<-ctx.Done()
	return bare.app.ShutdownWithContext(context.WithoutCancel(ctx))
}

// startBareServer serves answers on addr.
func startBareServer(replay answers, addr string) (*bareServer, error) {
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	gzip := []byte("gzip")
	handler := func(c *fiber.Ctx) error {
		byURI := replay[clientIndex(bytes.Contains(c.Request().Header.Peek(fiber.HeaderAcceptEncoding), gzip))]
		a, ok := byURI[string(c.Request().RequestURI())]
		if !ok {
			return c.SendStatus(fiber.StatusNotFound)
		}
		c.Status(a.Status)
		c.Set(fiber.HeaderContentType, a.ContentType)
		if a.ContentEncoding != "" {
			c.Set(fiber.HeaderContentEncoding, a.ContentEncoding)
		}
		for _, h := range a.Headers {
			c.Set(h[0], h[1])
		}
		return c.Send(a.Body)
	}
	for _, pattern := range bareRoutes {
		app.Get(pattern, handler)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("bare server: %w", err)
	}
	go func() { _ = app.Listener(ln) }()
	return &bareServer{app: app, addr: ln.Addr().String()}, nil
}
