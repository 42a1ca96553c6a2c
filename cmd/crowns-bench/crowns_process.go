package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// buildCrowns builds the crowns binary into dir with the go command and
// returns its path.
func buildCrowns(ctx context.Context, dir string) (string, error) {
	path := filepath.Join(dir, "crowns")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", path, "github.com/crownsdev/crowns/cmd/crowns")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build of crowns (run inside the module, or give --crowns): %v\n%s", err, out)
	}
	return path, nil
}

// crownsProcess is `crowns serve` running as a child process.
type crownsProcess struct {
	cmd        *exec.Cmd
	addr       string
	metricsURL string
	logPath    string
	exited     chan struct{}
	// peakRSS is the largest resident size seen by watchMemory, in bytes.
	mu      sync.Mutex
	peakRSS int64
}

// startAttempts is how many times startCrowns starts crowns on fresh
// ports when the ports it chose were taken before crowns bound them.
const startAttempts = 3

// errPortTaken: crowns could not listen on a port chosen for it, which
// another process took after freePort found it free.
var errPortTaken = errors.New("a port chosen for crowns was taken before it listened")

// startCrowns runs binary serve with env added to this process's
// environment (less its CROWNS_* variables), its API and metrics on
// loopback ports that freePort gives, its output into logPath, and waits
// until its API answers /healthz. Should another process take a port
// first, it starts again on others.
func startCrowns(ctx context.Context, binary, logPath string, env map[string]string, freePort func() (string, error)) (*crownsProcess, error) {
	var err error
	for range startAttempts {
		var p *crownsProcess
		if p, err = startCrownsOnce(ctx, binary, logPath, env, freePort); !errors.Is(err, errPortTaken) {
			return p, err
		}
	}
	return nil, err
}

// startCrownsOnce is one attempt of startCrowns.
func startCrownsOnce(ctx context.Context, binary, logPath string, env map[string]string, freePort func() (string, error)) (*crownsProcess, error) {
	addr, err := freePort()
	if err != nil {
		return nil, err
	}
	metricsAddr, err := freePort()
	if err != nil {
		return nil, err
	}
	log, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	defer func() { _ = log.Close() }()
	cmd := exec.Command(binary, "serve")
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CROWNS_") && !strings.HasPrefix(kv, "GOGC=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	for name, value := range env {
		cmd.Env = append(cmd.Env, name+"="+value)
	}
	cmd.Env = append(cmd.Env, "CROWNS_ADDR="+addr, "CROWNS_METRICS_ADDR="+metricsAddr, "CROWNS_LOG_FORMAT=text")
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start crowns: %w", err)
	}
	p := &crownsProcess{cmd: cmd, addr: addr, metricsURL: "http://" + metricsAddr + "/metrics",
		logPath: logPath, exited: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		close(p.exited)
	}()
	if err := p.waitReady(ctx, 2*time.Minute); err != nil {
		p.stop()
		return nil, err
	}
	return p, nil
}

// waitReady waits until the process's log says it listens on its
// address and /healthz there answers 200: an answer alone could come from
// another process that took the port before crowns bound it.
func (p *crownsProcess) waitReady(ctx context.Context, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		select {
		case <-p.exited:
			tail := p.logTail()
			if strings.Contains(tail, "address already in use") {
				return fmt.Errorf("%w:\n%s", errPortTaken, tail)
			}
			return fmt.Errorf("crowns exited at start:\n%s", tail)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if !p.listening() {
			continue
		}
		resp, err := http.Get("http://" + p.addr + "/healthz")
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
	}
	return fmt.Errorf("crowns did not answer /healthz within %s:\n%s", limit, p.logTail())
}

// listening reports whether the process's log says its API listens on
// its address.
func (p *crownsProcess) listening() bool {
	out, _ := os.ReadFile(p.logPath)
	return strings.Contains(string(out), `msg="API listening" addr=`+p.addr+"\n")
}

// explain adds to err, when the process has exited, that it has and the
// end of its log: a row that fails for want of an answer says why crowns
// went.
func (p *crownsProcess) explain(err error) error {
	select {
	case <-p.exited:
		return fmt.Errorf("%w\ncrowns has exited (%s); the end of its log:\n%s", err, p.cmd.ProcessState, p.logTail())
	default:
		return err
	}
}

// logTail is the end of the process's output, for error messages.
func (p *crownsProcess) logTail() string {
	out, _ := os.ReadFile(p.logPath)
	if len(out) > 4000 {
		out = out[len(out)-4000:]
	}
	return string(out)
}

// stop sends SIGTERM and waits for the process to end (SIGKILL after 30s).
func (p *crownsProcess) stop() {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(30 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
}

// watchMemory samples the process's resident size every interval until
// ctx ends, keeping the largest.
func (p *crownsProcess) watchMemory(ctx context.Context, interval time.Duration) {
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	for {
		p.sampleMemory()
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}

// sampleMemory reads the process's VmRSS once into peakRSS.
func (p *crownsProcess) sampleMemory() {
	rss, err := residentBytes(p.cmd.Process.Pid)
	if err != nil {
		return
	}
	p.mu.Lock()
	p.peakRSS = max(p.peakRSS, rss)
	p.mu.Unlock()
}

// peakResident is the largest resident size sampled.
func (p *crownsProcess) peakResident() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.peakRSS
}

// residentBytes reads VmRSS of process pid from /proc/<pid>/status.
func residentBytes(pid int) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer func() { _ = f.Close() }()
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		value, ok := strings.CutPrefix(scanner.Text(), "VmRSS:")
		if !ok {
			continue
		}
		fields := strings.Fields(value)
		if len(fields) != 2 || fields[1] != "kB" {
			break
		}
		kb, err := strconv.ParseInt(fields[0], 10, 64)
		return kb << 10, err
	}
	return 0, errors.New("no VmRSS")
}

// statements are the database statements the process has sent, as its
// metrics count them.
type statements struct {
	request, background float64
}

// statements scrapes the process's crowns_database_statements_total.
func (p *crownsProcess) statements() (statements, error) {
	resp, err := http.Get(p.metricsURL)
	if err != nil {
		return statements{}, err
	}
	defer func() { _ = resp.Body.Close() }()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		return statements{}, fmt.Errorf("metrics of crowns: %w", err)
	}
	var out statements
	family := families["crowns_database_statements_total"]
	if family == nil {
		return out, errors.New("metrics of crowns: no crowns_database_statements_total")
	}
	for _, m := range family.GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() != "work" {
				continue
			}
			switch l.GetValue() {
			case "request":
				out.request = m.GetCounter().GetValue()
			case "background":
				out.background = m.GetCounter().GetValue()
			}
		}
	}
	return out, nil
}

// freeLoopbackAddr is a loopback address with a port free right now (and
// maybe not a moment later: see startCrowns).
func freeLoopbackAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer func() { _ = ln.Close() }()
	return ln.Addr().String(), nil
}
